"""Rate limits: filings per API key (or client address), wrong tokens per client and reference.

Counters are token buckets held in memory by each process. With several
HTTP processes the effective limit is the sum over processes, which still
caps guessing: an access token is 256 random bits, the limit only has to
make hammering a reference pointless and noisy.

Wrong tokens are counted per (client, reference), and the limit only changes
what a wrong token hears (429 in place of 404): the right token always reads
its thread. Counting per reference alone let anyone who knew a reference
(they are sequential) lock its agent out.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from gateway.errors import FieldProblem, RateLimited
from gateway.services import Services

# Keys tracked per limit; past it the least recently used go (full buckets first).
MAX_TRACKED = 10_000


@dataclass
class _Bucket:
    tokens: float
    updated: float


class TokenBucket:
    """``capacity`` events at once, refilled at ``capacity`` per ``period`` seconds."""

    def __init__(
        self, capacity: int, period: float, now: Callable[[], float] = time.monotonic
    ) -> None:
        self.capacity = max(capacity, 1)
        self.rate = self.capacity / period
        self._now = now
        # Least recently used first.
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self._lock = threading.Lock()

    def _refill(self, key: str) -> _Bucket:
        now = self._now()
        bucket = self._buckets.pop(key, None)
        if bucket is None:
            self._make_room(now)
            bucket = _Bucket(float(self.capacity), now)
        self._buckets[key] = bucket
        bucket.tokens = min(self.capacity, bucket.tokens + (now - bucket.updated) * self.rate)
        bucket.updated = now
        return bucket

    def _make_room(self, now: float) -> None:
        if len(self._buckets) < MAX_TRACKED:
            return
        # Full buckets carry no information: dropping them loses nothing.
        refilled = [
            k
            for k, b in self._buckets.items()
            if b.tokens + (now - b.updated) * self.rate >= self.capacity
        ]
        for k in refilled:
            del self._buckets[k]
        while len(self._buckets) >= MAX_TRACKED:
            self._buckets.popitem(last=False)

    def wait_seconds(self, key: str) -> float:
        """0 if one more event is allowed now, else the seconds until it is."""
        with self._lock:
            if key not in self._buckets:
                # Never counted: nothing to keep (a check alone costs no memory).
                return 0.0
            bucket = self._refill(key)
            return 0.0 if bucket.tokens >= 1 else (1 - bucket.tokens) / self.rate

    def take(self, key: str) -> float:
        """Count one event; returns 0, or the seconds to wait if there was no room."""
        with self._lock:
            bucket = self._refill(key)
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return 0.0
            return (1 - bucket.tokens) / self.rate


def too_many(message: str, field: str, wait: float) -> RateLimited:
    seconds = max(1, math.ceil(wait))
    return RateLimited(
        f"{message}; retry after {seconds} second(s)",
        [FieldProblem(field, f"wait {seconds} second(s)")],
        headers={"Retry-After": str(seconds)},
    )


class RateLimits:
    """The gateway's two limits, configured from the settings."""

    def __init__(self, filings_per_minute: int, token_failures_per_hour: int) -> None:
        self.filings = TokenBucket(filings_per_minute, 60.0)
        self.token_failures = TokenBucket(token_failures_per_hour, 3600.0)

    def check_filing(self, who: str) -> None:
        """Count one filing by ``who`` (key name or client address); RateLimited if over."""
        wait = self.filings.take(who)
        if wait:
            raise too_many("too many requests filed", "X-API-Key", wait)

    @staticmethod
    def _pair(client: str, reference: str) -> str:
        # Bounded keys: a scan of huge made-up references must not grow memory.
        return f"{client[:64]}|{reference.strip().upper()[:32]}"

    def token_wait(self, client: str, reference: str) -> float:
        """0, or how long ``client`` must wait before wrong tokens on ``reference`` count."""
        return self.token_failures.wait_seconds(self._pair(client, reference))

    def token_failed(self, client: str, reference: str) -> None:
        self.token_failures.take(self._pair(client, reference))

    @staticmethod
    def wrong_tokens(reference: str, wait: float) -> RateLimited:
        """What a wrong token hears once its client has had too many on this reference."""
        return too_many(
            f"too many wrong access tokens for {reference.strip().upper()[:32]} from this client",
            "access_token",
            wait,
        )


def _build_limits(services: Services) -> RateLimits:
    config = services.config
    return RateLimits(config.rate_limit_per_minute, config.token_failures_per_hour)


def limits_for(services: Services) -> RateLimits:
    """The one RateLimits of these services, shared by HTTP, MCP and compat endpoints."""
    return services.shared(_build_limits)
