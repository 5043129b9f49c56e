"""Rate limits as token buckets: they refill, and the wrong-token buckets stay bounded."""

from __future__ import annotations

import pytest

from gateway.intake.ratelimit import RateLimits, TokenBucket


def test_wrong_token_buckets_stay_bounded() -> None:
    limits = RateLimits(60, 20)
    for n in range(3000):
        limits.token_failed(f"addr:10.0.{n // 250}.{n % 250}", "HFA-" + "9" * 12000 + str(n))
    # Keys are cut to a bounded length, whatever the path carried.
    assert max(len(k) for k in limits.token_failures._buckets) < 100


def test_token_bucket_refills() -> None:
    now = [0.0]
    bucket = TokenBucket(2, 60.0, now=lambda: now[0])
    assert (bucket.take("k"), bucket.take("k")) == (0.0, 0.0)
    assert bucket.take("k") == pytest.approx(30.0)
    now[0] = 30.0
    assert bucket.take("k") == 0.0
