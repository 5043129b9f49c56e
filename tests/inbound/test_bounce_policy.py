"""BouncePolicy: what the bounce address refuses in the session, and its daily budget."""

from __future__ import annotations

from datetime import date

from gateway.inbound.bounce_policy import BOUNCE_HEAD_BYTES, BOUNCE_MAX_BYTES, BouncePolicy

REPORT = b"From: MAILER-DAEMON@mx.example\r\nAuto-Submitted: auto-replied\r\n\r\n"
PERSON = b"From: someone@else.example\r\nSubject: Hello\r\n\r\nIs anyone there?\r\n"


def test_only_a_persons_mail_and_oversized_mail_are_refused() -> None:
    policy = BouncePolicy()
    assert policy.refusal(REPORT + b"x" * 1000, "") is None
    # A made-up citation no longer matters here: the worker decides what is kept.
    assert policy.refusal(REPORT + b"In-Reply-To: <x@anything.example>\r\n", "") is None
    refused = policy.refusal(PERSON, "someone@else.example")
    assert refused is not None and refused.startswith("550 5.7.1")
    too_large = policy.refusal(REPORT + b"x" * BOUNCE_MAX_BYTES, "")
    assert too_large is not None and too_large.startswith("552")


def test_past_the_daily_budget_only_the_head_is_kept_until_the_next_day() -> None:
    policy = BouncePolicy(daily_bytes=250_000)
    big = REPORT + b"x" * 100_000
    day = date(2026, 12, 1)
    assert policy.within_budget(big, day) is big
    assert policy.within_budget(big, day) is big
    cut = policy.within_budget(big, day)
    assert cut == big[:BOUNCE_HEAD_BYTES]
    assert policy.within_budget(big, date(2026, 12, 2)) is big
