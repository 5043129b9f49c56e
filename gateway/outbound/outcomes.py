"""What the outbox records once a delivery is over: sent, deferred for a retry, or dead.

A delivery is marked sent only after the other side accepted it, in the same
transaction as its ``CHANNEL.sent`` audit entry. Deliveries that finish together
are recorded by one write: one UPDATE for all of them, then their entries in the
order they finished.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from gateway import contract
from gateway.errors import DeliveryError, PermanentDelivery, TransientDelivery
from gateway.outbound import retry
from gateway.outbound.targets import shown_target
from gateway.services import Services
from gateway.store.models import OutboxItem, Request
from gateway.store.prepared import Prepared, connection_of
from gateway.store.thread import add_turn

# (the claimed item, what the other side said)
Delivered = tuple[OutboxItem, str]

_OUTBOX = OutboxItem.__table__.c
_MARKED = (_OUTBOX.id, _OUTBOX.delay_noticed_at, _OUTBOX.revived_by)


def _mark_sent(keep_relayed: bool) -> Prepared:
    """One item marked sent (and the bytes the relay got kept with it), compiled once.

    What it returns says whether the thread was told of a delay or an ops retry.
    """
    values: dict[str, Any] = {
        "state": "sent",
        "lease_until": None,
        "last_error": None,
        "sent_at": bindparam("sent_at"),
    }
    if keep_relayed:
        values |= {"relayed": bindparam("relayed"), "relayed_sha256": bindparam("sha256")}
    statement = (
        update(OutboxItem)
        .where(_OUTBOX.id == bindparam("item_id"))
        .values(values)
        .returning(*_MARKED)
    )
    return Prepared(statement, results=[column.type for column in _MARKED])


# On SQLite, by item: the UPDATE of the whole batch, compiled for each batch, cost more
# than one statement compiled once and run for each item. On PostgreSQL each statement
# is a round trip, and the batch stays one UPDATE (and one for the bytes kept).
_MARK_SENT = _mark_sent(keep_relayed=False)
_MARK_SENT_KEEPING = _mark_sent(keep_relayed=True)
_MARK_BATCH_SENT = (
    update(OutboxItem).values(state="sent", lease_until=None, last_error=None).returning(*_MARKED)
)
_KEEP_RELAYED = (
    update(OutboxItem)
    .where(OutboxItem.id == bindparam("i"))
    .values(relayed=bindparam("b"), relayed_sha256=bindparam("h"))
)

# (id, delay_noticed_at, revived_by) of an item marked sent
Marked = Sequence[Any]


def record_successes(services: Services, session: Session, delivered: Sequence[Delivered]) -> None:
    """Mark the claimed items sent, keeping the bytes relayed, and audit each.

    Everything an entry names is on the item as it was claimed; a row and its request
    are read back only when the thread was told of a delay or an ops retry (the UPDATE
    returns whether it was), to say it went out.
    """
    if not delivered:
        return
    now = services.clock.now()
    connection = connection_of(session)
    marked: Mapping[int, Marked | None]
    if connection.dialect.name == "sqlite":
        marked = {item.id: _mark_one(connection, item, now) for item, _detail in delivered}
    else:
        marked = _mark_batch(connection, delivered, now)
    for item, detail in delivered:
        details: dict[str, object] = {
            "outbox_id": item.id,
            "purpose": item.purpose,
            "to": shown_target(item.target),
            "attempt": item.attempts,
            "relay": detail[:300],
        }
        relayed_sha256 = _relayed(item)[1]
        if relayed_sha256 is not None:
            # The hash of the bytes that left: the log vouches for the message kept.
            details["sha256"] = relayed_sha256
        services.audit.append(
            session,
            f"{item.channel}.sent",
            at=now,
            reference=contract.reference_for(item.request_id) if item.request_id else None,
            details=details,
        )
        row = marked.get(item.id)
        if row is not None and (row[1] is not None or row[2]):
            _notice_delivered(session, item, now)
    if retry.release_waiting(services, session, [item for item, _detail in delivered]):
        services.outbox_ready.set()


def _mark_one(connection: Connection, item: OutboxItem, now: datetime) -> Marked | None:
    relayed, relayed_sha256 = _relayed(item)
    if relayed is None:
        return _MARK_SENT.first(connection, {"item_id": item.id, "sent_at": now})
    return _MARK_SENT_KEEPING.first(
        connection,
        {"item_id": item.id, "sent_at": now, "relayed": relayed, "sha256": relayed_sha256},
    )


def _mark_batch(
    connection: Connection, delivered: Sequence[Delivered], now: datetime
) -> dict[int, Marked]:
    ids = [item.id for item, _detail in delivered]
    statement = _MARK_BATCH_SENT.where(OutboxItem.id.in_(ids)).values(sent_at=now)
    marked: dict[int, Marked] = {row[0]: row for row in connection.execute(statement)}
    rows = [
        {"i": item.id, "b": raw, "h": digest}
        for item, _detail in delivered
        for raw, digest in [_relayed(item)]
        if raw is not None
    ]
    if rows:
        connection.execute(_KEEP_RELAYED, rows)
    return marked


def _relayed(item: OutboxItem) -> tuple[bytes | None, str | None]:
    """The bytes the deliverer handed to the relay, set on the claimed item, if any.

    Read from the instance's own state: ``relayed`` is a deferred column, and a claimed
    item is detached, so reading an attribute the deliverer did not set would load it.
    """
    state = item.__dict__
    return state.get("relayed"), state.get("relayed_sha256")


def _notice_delivered(session: Session, item: OutboxItem, now: datetime) -> None:
    current = session.get(OutboxItem, item.id)
    request = session.get(Request, item.request_id) if item.request_id else None
    if current is not None:
        retry.notice_delivered(session, current, request, shown_target(item.target), now)


def record_failure(
    services: Services, session: Session, item_id: int, error: DeliveryError
) -> None:
    """Schedule the retry of the claimed item ``item_id``, or make it dead, as ``error`` says."""
    config = services.config
    now = services.clock.now()
    item = session.get(OutboxItem, item_id)
    assert item is not None
    item.lease_until = None
    item.last_error = error.detail[:2000]
    request = session.get(Request, item.request_id) if item.request_id else None
    reference = request.reference if request else None
    permanent = isinstance(error, PermanentDelivery)
    # The audit entries of a failure and of a deferral: alike in shape (audit.append with
    # the item's details), different events with different details.
    if permanent or retry.exhausted(config, item, now):
        item.state = "dead"
        services.audit.append(
            session,
            f"{item.channel}.failed",
            at=now,
            reference=reference,
            details={
                "outbox_id": item.id,
                "purpose": item.purpose,
                "to": shown_target(item.target),
                "attempts": item.attempts,
                "error": item.last_error,
            },
        )
        if item.channel == "webhook" and item.last_error.startswith("410 "):
            # The receiver said it is gone: the push deliverer sends nothing more there.
            services.audit.append(
                session,
                "webhook.disabled",
                at=now,
                reference=reference,
                details={"outbox_id": item.id, "to": shown_target(item.target)},
            )
        if request is not None:
            add_turn(
                session,
                request,
                author="system",
                kind=f"{item.channel}_failed",
                at=now,
                body=f"Delivery of the {item.purpose.replace('_', ' ')} {item.channel} "
                f"to {shown_target(item.target)} failed after {item.attempts} attempt(s): "
                f"{item.last_error}",
                data={"outbox_id": item.id, "to": shown_target(item.target)},
            )
        return
    retry_after = error.retry_after if isinstance(error, TransientDelivery) else None
    delay = retry.next_delay(config, item, retry_after)
    retry.note_failure(services, item)
    if retry_after is None:
        delay = retry.probe_delay(session, item, now, delay)
    item.next_attempt_at = now + timedelta(seconds=delay)
    retry.notice_delay(services, session, item, request, shown_target(item.target), now)
    services.audit.append(
        session,
        f"{item.channel}.deferred",
        at=now,
        reference=reference,
        details={
            "outbox_id": item.id,
            "attempt": item.attempts,
            "retry_in_seconds": round(delay, 3),
            "error": item.last_error,
        },
    )
