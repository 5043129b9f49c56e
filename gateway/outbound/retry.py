"""How long a failing delivery is retried, how far apart, and what the thread is told.

A delivery is retried for a period, not a number of attempts, as mail servers
do: email for ``HFA_OUTBOX_RETRY_SECONDS`` (5 days), webhooks for
``HFA_WEBHOOK_RETRY_SECONDS``, counted from when it was queued or from when
ops brought a dead one back. The wait doubles from
``HFA_OUTBOX_BACKOFF_SECONDS`` up to ``HFA_OUTBOX_MAX_BACKOFF_SECONDS``, so a
relay that comes back is used again within that bound.

A relay that answers again is used within ``PROBE_SECONDS``, not at the next
backoff: among the emails waiting on a failure, one is always due within that
time (the probe), and when a retried email goes out, every email waiting for
the relay is released at once.

An email still failing ``HFA_OUTBOX_DELAY_NOTICE_SECONDS`` after it was queued
gets one ``email_delayed`` system turn; when a delayed (or ops-retried)
delivery finally goes out, one ``email_delivered`` turn says so. Webhook
delays are not told on the thread: a turn there is what pushes carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, exists, select, update
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.services import Services
from gateway.settings.config import Config
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


# The longest a relay that answers again waits to be tried, whatever the backoff.
PROBE_SECONDS = 60.0


def _waiting_emails(now: datetime) -> tuple[ColumnElement[bool], ...]:
    """Email deliveries that failed before, are waiting for their retry and not claimed."""
    return (
        OutboxItem.channel == "email",
        OutboxItem.state == "pending",
        OutboxItem.last_error.is_not(None),
        OutboxItem.next_attempt_at > now,
        (OutboxItem.lease_until.is_(None)) | (OutboxItem.lease_until < now),
    )


def probe_delay(session: Session, item: OutboxItem, now: datetime, delay: float) -> float:
    """``delay``, or at most PROBE_SECONDS when no other waiting email is due that soon.

    So one email always tries the relay within PROBE_SECONDS, and its success
    releases the rest (``release_waiting``).
    """
    if item.channel != "email" or delay <= PROBE_SECONDS:
        return delay
    soon = now + timedelta(seconds=PROBE_SECONDS)
    other_probe = session.scalar(
        select(
            exists().where(
                OutboxItem.channel == "email",
                OutboxItem.state == "pending",
                OutboxItem.last_error.is_not(None),
                OutboxItem.id != item.id,
                OutboxItem.next_attempt_at <= soon,
            )
        )
    )
    return delay if other_probe else PROBE_SECONDS


@dataclass
class RelayState:
    """What this process saw of the relay: a failure since the waiting mail was released."""

    failing: bool = False


def relay_state(services: Services) -> RelayState:
    return services.shared(_new_relay_state)


def _new_relay_state(_services: Services) -> RelayState:
    return RelayState()


def release_waiting(services: Services, session: Session, delivered: list[OutboxItem]) -> int:
    """An email went out, so the relay answers again: retry the emails waiting for it now.

    Looked for only after this process saw the relay fail, or when the email that went
    out was itself a retry (the probe, perhaps another process's): a success on the first
    try otherwise says nothing new, and the hot path stays one UPDATE.
    """
    emails = [i for i in delivered if i.channel == "email"]
    state = relay_state(services)
    if not emails or not (state.failing or any(i.attempts > 1 for i in emails)):
        return 0
    state.failing = False
    now = services.clock.now()
    released = session.execute(
        update(OutboxItem).where(*_waiting_emails(now)).values(next_attempt_at=now)
    )
    return int(getattr(released, "rowcount", 0) or 0)


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
