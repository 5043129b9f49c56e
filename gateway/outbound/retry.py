"""How long a failing delivery is retried, how far apart, and what the thread is told.

A delivery is retried for a period, not a number of attempts, as mail servers
do: email for ``HFA_OUTBOX_RETRY_SECONDS`` (5 days), webhooks for
``HFA_WEBHOOK_RETRY_SECONDS``, counted from when it was queued or from when
ops brought a dead one back. The wait doubles from
``HFA_OUTBOX_BACKOFF_SECONDS`` up to ``HFA_OUTBOX_MAX_BACKOFF_SECONDS``, so a
relay that comes back is used again within that bound.

An email still failing ``HFA_OUTBOX_DELAY_NOTICE_SECONDS`` after it was queued
gets one ``email_delayed`` system turn; when a delayed (or ops-retried)
delivery finally goes out, one ``email_delivered`` turn says so. Webhook
delays are not told on the thread: a turn there is what pushes carry.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from gateway.config import Config
from gateway.contract import iso
from gateway.services import Services
from gateway.store.models import OutboxItem, Request
from gateway.store.thread import add_turn


def _since(item: OutboxItem) -> datetime:
    return item.retry_since or item.created_at


def period_seconds(config: Config, item: OutboxItem) -> float:
    if item.channel == "webhook":
        return config.webhook_retry_seconds
    return config.outbox_retry_seconds


def exhausted(config: Config, item: OutboxItem, now: datetime) -> bool:
    """True when the retry period (or the optional attempt cap) has run out."""
    if config.outbox_max_attempts and item.attempts >= config.outbox_max_attempts:
        return True
    return (now - _since(item)).total_seconds() >= period_seconds(config, item)


def next_delay(config: Config, item: OutboxItem, retry_after: float | None) -> float:
    """Seconds until the next attempt: doubling, capped, and never before Retry-After."""
    doubling: float = config.outbox_backoff_seconds * 2.0 ** min(item.attempts - 1, 40)
    return max(min(doubling, config.outbox_max_backoff_seconds), retry_after or 0.0)


def _span(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def notice_delay(
    services: Services,
    session: Session,
    item: OutboxItem,
    request: Request | None,
    shown_to: str,
    now: datetime,
) -> None:
    """Once per retry period: tell the thread an email is late, and until when it is retried."""
    config = services.config
    late = (now - _since(item)).total_seconds()
    if (
        item.channel != "email"
        or item.delay_noticed_at is not None
        or late < config.outbox_delay_notice_seconds
    ):
        return
    item.delay_noticed_at = now
    until = _since(item) + timedelta(seconds=period_seconds(config, item))
    services.audit.append(
        session,
        "email.delayed",
        at=now,
        reference=request.reference if request else None,
        details={"outbox_id": item.id, "to": shown_to, "attempts": item.attempts},
    )
    if request is None:
        return
    add_turn(
        session,
        request,
        author="system",
        kind="email_delayed",
        at=now,
        body=f"The {item.purpose.replace('_', ' ')} email to {shown_to} is not delivered yet: "
        f"{item.attempts} attempt(s) over {_span(late)} failed (last: {item.last_error}). "
        f"It is retried until {iso(until)}.",
        data={"outbox_id": item.id, "to": shown_to, "retry_until": iso(until)},
    )


def notice_delivered(
    session: Session, item: OutboxItem, request: Request | None, shown_to: str, now: datetime
) -> None:
    """After a delay that was told, or an ops retry of a dead item: say it went out."""
    if request is None or (item.delay_noticed_at is None and item.revived_by is None):
        return
    late = (now - item.created_at).total_seconds()
    how = f", after {item.revived_by} retried it" if item.revived_by else ""
    add_turn(
        session,
        request,
        author="system",
        kind=f"{item.channel}_delivered",
        at=now,
        body=f"The {item.purpose.replace('_', ' ')} {item.channel} to {shown_to} was delivered "
        f"{_span(late)} after it was queued{how}.",
        data={"outbox_id": item.id, "to": shown_to, "attempts": item.attempts},
    )
