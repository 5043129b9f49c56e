"""The statements that record a reply, compiled once (``store.prepared``).

Recording a reply runs under the database's write lock (on SQLite, one for every
process). Through the ORM, each of its reads and writes made the unit of work
flush first, and the flushes cost more than the statements. Here each is one
cursor call on the session's connection, and nothing is left in the session for
a later flush: the rows written are never held by it as changed objects.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from gateway.store.models import InboundMessage, Recipient
from gateway.store.prepared import Prepared, connection_of, prepared_insert
from gateway.store.reading_models import PendingReading

_INBOUND = InboundMessage.__table__.c
_PENDING = PendingReading.__table__.c
_RECIPIENTS = Recipient.__table__.c

# What a message's outcome sets on its row (``inbound.record.finish``).
_OUTCOME_COLUMNS = (
    "state",
    "outcome",
    "outcome_detail",
    "processed_at",
    "lease_until",
    "request_id",
    "recipient_id",
    "turn_id",
)
_SET_OUTCOME = Prepared(
    update(InboundMessage)
    .where(_INBOUND.id == bindparam("inbound_id"))
    .values({name: bindparam(name) for name in _OUTCOME_COLUMNS})
)

# A lawyer's held readings not settled yet, oldest first (usually none).
_UNSETTLED = Prepared(
    select(_PENDING.id, _PENDING.turn_id, _PENDING.due_at)
    .where(
        _PENDING.request_id == bindparam("request_id"),
        _PENDING.recipient_id == bindparam("recipient_id"),
        _PENDING.settled_at.is_(None),
    )
    .order_by(_PENDING.id),
    results=(_PENDING.id.type, _PENDING.turn_id.type, _PENDING.due_at.type),
)
_INSERT_PENDING = prepared_insert(
    PendingReading,
    ("request_id", "recipient_id", "turn_id", "due_at", "settled_at", "outcome"),
    returning_id=False,
)

# Whether a thread has anyone but the one who answered (then they are told of it).
_SOMEONE_ELSE = Prepared(
    select(_RECIPIENTS.id)
    .where(
        _RECIPIENTS.request_id == bindparam("request_id"),
        _RECIPIENTS.id != bindparam("recipient_id"),
    )
    .limit(1)
)


def set_outcome(session: Session, row: InboundMessage, values: dict[str, Any]) -> None:
    """Write a message's outcome (the ``_OUTCOME_COLUMNS``) and show it on ``row`` as
    stored, so the session has nothing of it to flush."""
    prepared_values = {name: values[name] for name in _OUTCOME_COLUMNS}
    _SET_OUTCOME.execute(connection_of(session), {**prepared_values, "inbound_id": row.id})
    for name, value in prepared_values.items():
        set_committed_value(row, name, value)


def unsettled_readings(
    session: Session, request_id: int, recipient_id: int
) -> list[tuple[int, int, datetime]]:
    """(id, turn id, due) of the recipient's readings still waiting on this request."""
    rows = _UNSETTLED.all(
        connection_of(session), {"request_id": request_id, "recipient_id": recipient_id}
    )
    return [(int(i), int(turn_id), due) for i, turn_id, due in rows]


def add_pending_reading(
    session: Session, request_id: int, recipient_id: int, turn_id: int, due_at: datetime
) -> None:
    """A held reading's row, settled later exactly once (``inbound.pending``)."""
    _INSERT_PENDING.execute(
        connection_of(session),
        {
            "request_id": request_id,
            "recipient_id": recipient_id,
            "turn_id": turn_id,
            "due_at": due_at,
            "settled_at": None,
            "outcome": None,
        },
    )


def anyone_else_on(session: Session, request_id: int, recipient_id: int) -> bool:
    """Is anyone but ``recipient_id`` a recipient of the request?"""
    params = {"request_id": request_id, "recipient_id": recipient_id}
    return _SOMEONE_ELSE.first(connection_of(session), params) is not None
