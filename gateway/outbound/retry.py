"""How long a failing delivery is retried, how far apart, and what the thread is told.

A delivery is retried for a period, not a number of attempts, as mail servers
do: email for ``HFA_OUTBOX_RETRY_SECONDS`` (5 days), webhooks for
``HFA_WEBHOOK_RETRY_SECONDS``, counted from when it was queued or from when
ops brought a dead one back. The wait doubles from
``HFA_OUTBOX_BACKOFF_SECONDS`` up to ``HFA_OUTBOX_MAX_BACKOFF_SECONDS``, so a
relay that comes back is used again within that bound.

A receiver that answers again is used within ``PROBE_SECONDS``, not at the
next backoff. Receivers are the relay (for every email) and each webhook host
(scheme, host and port): among the deliveries waiting on a failure of one
receiver, one is always due within that time (the probe), and when a delivery
to it goes out, every delivery waiting for that receiver is released at once.

An email still failing ``HFA_OUTBOX_DELAY_NOTICE_SECONDS`` after it was queued
gets one ``email_delayed`` system turn; when a delayed (or ops-retried)
delivery finally goes out, one ``email_delivered`` turn says so. Webhook
delays are not told on the thread: a turn there is what pushes carry.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from sqlalchemy import ColumnElement, exists, func, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.errors import DeliveryError, PermanentDelivery, StorageError, TransientDelivery
from gateway.services import Services
from gateway.settings.config import Config
from gateway.store.models import OutboxItem, Request
from gateway.store.thread import add_turn

log = logging.getLogger(__name__)


def _since(item: OutboxItem) -> datetime:
    return item.retry_since or item.created_at


# The channels delivered over HTTP to an agent's URL (Standard Webhooks pushes, A2H
# callbacks): each receiver is its URL's origin, never the mail relay.
HTTP_CHANNELS = ("webhook", "a2h_webhook")


def period_seconds(config: Config, item: OutboxItem) -> float:
    if item.channel in HTTP_CHANNELS:
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


# The longest a receiver that answers again waits to be tried, whatever the backoff.
PROBE_SECONDS = 60.0
# Every channel but webhooks goes out through the one mail relay.
RELAY = "the relay"


def receiver_of(item: OutboxItem) -> str:
    """Who answers for ``item``: the mail relay, or a webhook URL's origin (scheme, host,
    port), since the URLs of one host fail and recover together."""
    if item.channel not in HTTP_CHANNELS:
        return RELAY
    return _origin(item.target)


def _origin(url: str) -> str:
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url.strip().lower()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port or _DEFAULT_PORTS.get(scheme, 0)}"


_DEFAULT_PORTS = {"https": 443, "http": 80}


def _waiting_where(item: OutboxItem, *also: ColumnElement[bool]) -> tuple[ColumnElement[bool], ...]:
    """Deliveries that failed before and wait, over ``item``'s receiver (see _for_receiver)."""
    return _for_receiver(item, OutboxItem.last_error.is_not(None), *also)


def _for_receiver(item: OutboxItem, *also: ColumnElement[bool]) -> tuple[ColumnElement[bool], ...]:
    """Pending deliveries over ``item``'s receiver: every channel of the relay, or the
    webhook URLs that may be on its host (``_same_host`` checks exactly after)."""
    shape = (OutboxItem.state == "pending", *also)
    if item.channel not in HTTP_CHANNELS:
        return (OutboxItem.channel.not_in(HTTP_CHANNELS), *shape)
    parts = urlsplit(item.target.strip())
    host = (parts.hostname or "").lower()
    prefix = f"{parts.scheme.lower()}://{f'[{host}]' if ':' in host else host}"
    on_host = func.lower(OutboxItem.target).startswith(prefix, autoescape=True)
    return (OutboxItem.channel.in_(HTTP_CHANNELS), on_host, *shape)


def _same_host(
    session: Session, item: OutboxItem, *where: ColumnElement[bool], failed: bool = True
) -> list[int]:
    """The ids of the pending (by default: failed and waiting) webhooks ``where`` says,
    to ``item``'s very origin."""
    origin = _origin(item.target)
    shape = _waiting_where(item, *where) if failed else _for_receiver(item, *where)
    rows = session.execute(select(OutboxItem.id, OutboxItem.target).where(*shape))
    return [row.id for row in rows if _origin(row.target) == origin]


def probe_delay(session: Session, item: OutboxItem, now: datetime, delay: float) -> float:
    """``delay``, or at most PROBE_SECONDS when ``item`` is the probe of its receiver (the
    relay, or the webhook's host): the oldest of what waits for it.

    Only an older delivery that will try the receiver soon takes the part: one in flight
    (it fails, and is the probe, or it goes out, and releases the rest) or one that failed
    and is due within PROBE_SECONDS. The oldest is the same row for every process, so
    failures recorded at once in separate transactions agree on it, and each failing
    receiver is tried within PROBE_SECONDS while the rest back off.
    """
    if delay <= PROBE_SECONDS:
        return delay
    soon = now + timedelta(seconds=PROBE_SECONDS)
    trying_soon = (OutboxItem.lease_until >= now) | (
        OutboxItem.last_error.is_not(None) & (OutboxItem.next_attempt_at <= soon)
    )
    older = (OutboxItem.id < item.id, trying_soon)
    if item.channel in HTTP_CHANNELS:
        other_probe = bool(_same_host(session, item, *older, failed=False))
    else:
        other_probe = bool(session.scalar(select(exists().where(*_for_receiver(item, *older)))))
    return delay if other_probe else PROBE_SECONDS


def _unclaimed(now: datetime) -> ColumnElement[bool]:
    return (OutboxItem.lease_until.is_(None)) | (OutboxItem.lease_until < now)


@dataclass
class RelayState:
    """The receivers this process saw fail since what waited for them was released:
    RELAY for the mail relay, an origin for each webhook host."""

    failing: set[str] = field(default_factory=set)


def relay_state(services: Services) -> RelayState:
    return services.shared(_new_relay_state)


def _new_relay_state(_services: Services) -> RelayState:
    return RelayState()


def note_failure(services: Services, item: OutboxItem) -> None:
    """``item``'s receiver failed: its next success releases what waits for it."""
    relay_state(services).failing.add(receiver_of(item))


def release_waiting(services: Services, session: Session, delivered: list[OutboxItem]) -> int:
    """Deliveries went out, so their receivers answer again: retry now what waits for them.

    A success through the relay releases every email waiting for it; a webhook host's
    success releases the webhooks waiting for that host, and nothing else. Looked for
    only after this process saw that receiver fail, or when what went out was itself a
    retry (a probe, perhaps another process's): a success on the first try otherwise
    says nothing new, and the hot path stays one UPDATE. Returns how many were released.
    """
    state = relay_state(services)
    answering: dict[str, OutboxItem] = {}
    for item in delivered:
        receiver = receiver_of(item)
        if receiver in state.failing or item.attempts > 1:
            answering.setdefault(receiver, item)
    if not answering:
        # The hot path: the conditions below cost more to build than the UPDATE it spares.
        return 0
    now = services.clock.now()
    waiting = (OutboxItem.next_attempt_at > now, _unclaimed(now))
    released = 0
    for receiver, item in answering.items():
        state.failing.discard(receiver)
        if receiver == RELAY:
            result = session.execute(
                update(OutboxItem)
                .where(*_waiting_where(item, *waiting))
                .values(next_attempt_at=now)
            )
            count = int(getattr(result, "rowcount", 0) or 0)
        else:
            ids = _same_host(session, item, *waiting)
            if ids:
                session.execute(
                    update(OutboxItem).where(OutboxItem.id.in_(ids)).values(next_attempt_at=now)
                )
            count = len(ids)
        if count:
            log.info("outbox: %s answers again; %d waiting deliveries released", receiver, count)
        released += count
    return released


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


def failure_of(exc: Exception) -> DeliveryError:
    """What an error that is not a delivery's own outcome means for the item.

    The network, the disk or the database failing may pass by the next attempt: retried
    like a relay that is busy. Anything else is a fault in the gateway (composing the
    email raised, a key is missing): it would fail the same way on every attempt, so the
    item is dead at once, counted in /readyz and told to the thread, instead of retried
    unseen for days.
    """
    if isinstance(exc, OSError | TimeoutError | StorageError | SQLAlchemyError):
        return TransientDelivery(type(exc).__name__)
    return PermanentDelivery(f"internal error ({type(exc).__name__}); see the gateway's log")
