"""When replies arrived, as the record knows it: what the correction window is judged by.

A reply's ``received_at`` is written in the transaction that stores its bytes,
before the listener answers 250. A held reading's window is judged against it,
never against the moment the worker happens to read the reply: a REJECT
received in time wins even when the worker reads it after the window ended
(stalled, or killed and restarted).

That needs one ordering: the job that ends a window must see every reply whose
``received_at`` is before the end. A listener takes its ``received_at`` and
inserts the row in one transaction, so the row could still be uncommitted (and
invisible) when the job looks. ``fence`` closes that gap: on SQLite the one
write lock orders them already; on PostgreSQL each listener transaction holds a
shared advisory lock from before it reads the clock until it commits, and the
job takes the same lock exclusively, so it waits for every such transaction
under way and any later one reads a later clock.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam, func, select, text
from sqlalchemy.orm import Session

from gateway.store.models import InboundMessage
from gateway.store.prepared import Prepared, connection_of

_INBOUND = InboundMessage.__table__.c

# The advisory lock's key: any constant the gateway uses for nothing else ("hfa arrival").
ARRIVAL_LOCK = 0x68666161

_SHARED = text("SELECT pg_advisory_xact_lock_shared(:key)")
_EXCLUSIVE = text("SELECT pg_advisory_xact_lock(:key)")

# Messages stored but not yet read by a worker (pending: waiting, leased, or cut off by a
# crash), received inside a span: usually none, and read by the index on (state, id).
_UNREAD_BETWEEN = Prepared(
    select(_INBOUND.id, _INBOUND.rcpt_to).where(
        _INBOUND.state == "pending",
        _INBOUND.received_at > bindparam("after"),
        _INBOUND.received_at <= bindparam("until"),
    ),
    results=(_INBOUND.id.type, _INBOUND.rcpt_to.type),
)

# The newest answer of this lawyer on this request already on the record.
_LATEST_RECORDED = Prepared(
    select(func.max(_INBOUND.received_at)).where(
        _INBOUND.request_id == bindparam("request_id"),
        _INBOUND.recipient_id == bindparam("recipient_id"),
        _INBOUND.outcome == "recorded",
        _INBOUND.id != bindparam("this"),
    ),
    results=(_INBOUND.received_at.type,),
)

_RECEIVED_AT = Prepared(
    select(_INBOUND.received_at).where(_INBOUND.id == bindparam("inbound_id")),
    results=(_INBOUND.received_at.type,),
)


def fence(session: Session, *, exclusive: bool) -> None:
    """Order the storing of replies against the ending of windows (see the module's text).

    ``exclusive=False`` in a listener's transaction, before it reads the clock;
    ``exclusive=True`` in the transaction that ends a window, before it looks for
    unread replies, after the request's row (as a worker recording a reply takes
    them), so that no two transactions wait on each other. Nothing to do on SQLite:
    both hold its one write lock.
    """
    if session.get_bind().dialect.name != "postgresql":
        return
    session.execute(_EXCLUSIVE if exclusive else _SHARED, {"key": ARRIVAL_LOCK})


def unread_between(session: Session, after: datetime, until: datetime) -> list[list[str]]:
    """The recipients' addresses of every unread message received in ``(after, until]``."""
    rows = _UNREAD_BETWEEN.all(connection_of(session), {"after": after, "until": until})
    return [list(rcpt_to) for _id, rcpt_to in rows]


def latest_recorded(
    session: Session, request_id: int, recipient_id: int, this: int
) -> datetime | None:
    """When the newest answer of this lawyer on the request, other than ``this``, arrived."""
    params = {"request_id": request_id, "recipient_id": recipient_id, "this": this}
    row = _LATEST_RECORDED.first(connection_of(session), params)
    return row[0] if row is not None else None


def received_at(session: Session, inbound_id: int) -> datetime | None:
    row = _RECEIVED_AT.first(connection_of(session), {"inbound_id": inbound_id})
    return row[0] if row is not None else None
