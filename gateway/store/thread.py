"""A request's thread: appending turns, moving its status, reading it back.

Every change of status is also a ``system`` turn, so the thread alone tells
the whole story. Turns are only ever added.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, inspect, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from gateway.contract import HUMAN_ANSWER_KINDS, iso, storable, storable_value
from gateway.store.audit import AuditLog
from gateway.store.models import Request, Turn
from gateway.store.prepared import Prepared, connection_of, prepared_insert

_NEXT_SEQ = "hfa_next_turn_seq"
_LOCKED = "hfa_locked_requests"
_TURN_ROW = ("request_id", "seq", "author", "kind", "at", "body", "data")
_INSERT_FIRST_TURN = prepared_insert(Turn, _TURN_ROW, returning_id=False)
_INSERT_TURN = prepared_insert(Turn, _TURN_ROW)
# The request's row, locked (FOR NO KEY UPDATE, as an UPDATE of it would: rows that only
# refer to the request still go in): the one row two writers of a thread share. Taken
# before its turns are counted, so two turns never get one number; a transaction that
# writes to several threads locks them in id order first (inbound.match.preload_threads).
_LOCK_REQUEST = Prepared(
    select(Request.id).where(Request.id == bindparam("request_id")).with_for_update(key_share=True)
)
_LAST_SEQ = Prepared(
    select(func.coalesce(func.max(Turn.seq), 0)).where(Turn.request_id == bindparam("request_id"))
)


def add_turn(
    session: Session,
    request: Request,
    *,
    author: str,
    kind: str,
    at: datetime,
    body: str,
    data: dict[str, Any] | None = None,
) -> Turn:
    # Remembered for the rest of the transaction, so several turns (a reply and its
    # status change, a batch of submits) cost one query, and a new thread none.
    next_seq: dict[int, int] = session.info.setdefault(_NEXT_SEQ, {})
    seq = next_seq.get(request.id)
    connection = connection_of(session)
    if seq is None:
        if connection.dialect.name == "postgresql" and request.id not in session.info.get(
            _LOCKED, ()
        ):
            # SQLite has one writer at a time already.
            _LOCK_REQUEST.first(connection, {"request_id": request.id})
        last = _LAST_SEQ.first(connection, {"request_id": request.id})
        seq = (last[0] if last else 0) + 1
    next_seq[request.id] = seq + 1
    row = {
        "request_id": request.id,
        "seq": seq,
        "author": author,
        "kind": kind,
        "at": at,
        # Mail-derived text may hold a NUL or a lone surrogate: escaped, so PostgreSQL
        # can store it and every later read can answer with it (the raw bytes keep it).
        "body": storable(body),
        "data": storable_value(data) if data else {},
    }
    # Inserted at once by a prepared statement; the Turn handed back is a plain copy
    # (not in the session): turns are never changed after they are written.
    turn = Turn(id=_INSERT_TURN.insert_id(connection, row), **row)
    request.updated_at = at
    return turn


def note_locked(session: Session, request_ids: Iterable[int]) -> None:
    """Requests the transaction has locked as ``add_turn`` would (FOR NO KEY UPDATE), so
    it does not lock them again. A dict in ``session.info``: a savepoint undone puts it
    back as it was (``store.savepoints``), as PostgreSQL lets go of the locks taken in it."""
    locked: dict[int, bool] = session.info.setdefault(_LOCKED, {})
    locked.update(dict.fromkeys(request_ids, True))


def first_turn(
    session: Session, request_id: int, *, at: datetime, body: str, data: dict[str, Any]
) -> None:
    """The opening ``sender/request`` turn of a request just inserted (number 1, no query)."""
    _INSERT_FIRST_TURN.execute(
        connection_of(session),
        {
            "request_id": request_id,
            "seq": 1,
            "author": "sender",
            "kind": "request",
            "at": at,
            "body": body,
            "data": data,
        },
    )
    session.info.setdefault(_NEXT_SEQ, {})[request_id] = 2


def change_status(
    session: Session,
    audit: AuditLog,
    request: Request,
    new: str,
    *,
    at: datetime,
    reason: str,
    actor: str = "system",
    audit_reason: str | None = None,
) -> Turn | None:
    """Move the request to ``new``: a system turn and a ``request.status_changed`` entry.

    Returns the turn, or None if the status was already ``new``. ``audit_reason`` is the
    short reason the audit entry carries (default: ``reason``).
    """
    old = request.status
    if old == new:
        return None
    request.status = new
    audit.append(
        session,
        "request.status_changed",
        at=at,
        actor=actor,
        reference=request.reference,
        details={"from": old, "to": new, "reason": audit_reason or reason},
    )
    return add_turn(
        session,
        request,
        author="system",
        kind="status_changed",
        at=at,
        body=f"Status changed from {old} to {new}: {reason}",
        data={"from_status": old, "to_status": new},
    )


# One compiled UPDATE per set of columns a writer changes (a reply changes the same few).
_REQUEST_UPDATES: dict[tuple[str, ...], Prepared] = {}
_REQUEST_COLUMNS = frozenset(Request.__table__.c.keys())


def store_request(session: Session, request: Request) -> None:
    """Write what changed on ``request`` now, by one compiled UPDATE, and mark it as stored.

    The session then holds nothing to flush for it: on the worker's path every statement
    that would make the unit of work flush (and each flush costs more than the UPDATE) is
    left with nothing to do. Whoever undoes a savepoint after this must expire the
    request, as the session does not know it changed (``inbound.worker``).
    """
    state = inspect(request)
    keys = tuple(sorted(state.committed_state))
    if not keys or not _REQUEST_COLUMNS.issuperset(keys):
        # Nothing changed, or something no column holds: the unit of work writes it.
        return
    prepared = _REQUEST_UPDATES.get(keys)
    if prepared is None:
        statement = (
            update(Request)
            .where(Request.id == bindparam("request_id_"))
            .values({key: bindparam(key) for key in keys})
        )
        prepared = _REQUEST_UPDATES[keys] = Prepared(statement)
    values = {key: state.dict[key] for key in keys}
    prepared.execute(connection_of(session), {**values, "request_id_": request.id})
    # Marked as stored, as a flush would have left it (not only its values: the session
    # must stop counting it as changed, or each flush still walks it).
    state._commit_all(state.dict, session.identity_map)


def turn_as_json(turn: Turn) -> dict[str, Any]:
    """The contract's four keys first, then the turn's structure."""
    return turn_fields_as_json(turn.author, turn.kind, turn.at, turn.body, turn.data)


def turn_fields_as_json(
    author: str, kind: str, at: datetime | str, body: str, data: dict[str, Any]
) -> dict[str, Any]:
    """``at`` is a moment, or its contract text already (``utc_time.contract_time``)."""
    shown = at if isinstance(at, str) else iso(at)
    out: dict[str, Any] = {"author": author, "kind": kind, "at": shown, "body": body}
    for key, value in data.items():
        out.setdefault(key, value)
    return out


_TURN_COLUMNS = Turn.__table__.c
# The status read selects columns, not ORM objects: it is the hottest read path.
THREAD_ROWS = (
    select(
        _TURN_COLUMNS.author,
        _TURN_COLUMNS.kind,
        _TURN_COLUMNS.at,
        _TURN_COLUMNS.body,
        _TURN_COLUMNS.data,
    )
    .where(_TURN_COLUMNS.request_id == bindparam("request_id"))
    .order_by(_TURN_COLUMNS.seq)
)


def thread_as_json(session: Session | Connection, request_id: int) -> list[dict[str, Any]]:
    """Every turn of a request as the contract shows it, oldest first."""
    conn = session.connection() if isinstance(session, Session) else session
    rows = conn.execute(THREAD_ROWS, {"request_id": request_id})
    return [turn_fields_as_json(*row) for row in rows]


def replied(turns: list[dict[str, Any]]) -> bool:
    """``human_has_replied`` over turns already shown as JSON."""
    return any(t["author"] == "human" and t["kind"] in HUMAN_ANSWER_KINDS for t in turns)


def load_turns(session: Session, request_id: int) -> list[Turn]:
    return list(
        session.scalars(select(Turn).where(Turn.request_id == request_id).order_by(Turn.seq))
    )


def human_has_replied(turns: list[Turn]) -> bool:
    return any(t.author == "human" and t.kind in HUMAN_ANSWER_KINDS for t in turns)
