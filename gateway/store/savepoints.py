"""Undoing one write of several sharing a transaction: savepoints, two ways.

Group commits and the inbound worker run many writes in one transaction; a
write that fails must be undone alone. :func:`in_savepoint` uses the ORM's
nested transaction, which also puts the session's objects back.
:func:`in_driver_savepoint` issues the SAVEPOINT on the driver's cursor: the
ORM's way compiles a new statement per savepoint name, opens a nested
session transaction and asks for the connection again, which cost a filing
more than all of its inserts. It undoes what the session holds by hand:
objects that the failed write added are expunged and the rest are expired (so
they are read again as the database now has them). A failure that left the
session itself unusable (a flush error) raises :class:`BrokenBatch`, for the
caller to redo the other writes in a new transaction.

What a write keeps in ``session.info`` for later in the transaction (audit
lines to mirror, the audit chain's head, next turn numbers) goes back to how it
was before the write, either way.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.orm import Session

from gateway.errors import BrokenBatch
from gateway.store.prepared import connection_of, driver_connection

T = TypeVar("T")

_NAME = "hfa_write"


def _session_notes(session: Session) -> dict[str, Any]:
    return {k: copy.copy(v) for k, v in session.info.items() if isinstance(v, list | dict)}


def _restore_notes(session: Session, saved: dict[str, Any]) -> None:
    for key in [k for k, v in session.info.items() if isinstance(v, list | dict)]:
        if key in saved:
            session.info[key] = saved[key]
        else:
            del session.info[key]


def in_savepoint(session: Session, fn: Callable[[Session], T]) -> T:
    """Run ``fn`` in an ORM SAVEPOINT of the open transaction; on error undo it alone."""
    saved = _session_notes(session)
    try:
        with session.begin_nested():
            return fn(session)
    except Exception:
        _restore_notes(session, saved)
        raise


def in_driver_savepoint(session: Session, fn: Callable[[Session], T]) -> T:
    """Run ``fn`` in a SAVEPOINT issued on the driver; on error undo it alone and re-raise.

    Raises BrokenBatch instead when the failure ended the transaction.
    """
    # Whatever earlier writes left unflushed is theirs: written before this savepoint.
    session.flush()
    saved = _session_notes(session)
    known = set(session.identity_map.keys())
    cursor = driver_connection(connection_of(session)).cursor()
    cursor.execute(f"SAVEPOINT {_NAME}")
    try:
        value = fn(session)
        session.flush()
    except Exception as exc:
        if not session.is_active:
            # A failed flush rolled the whole transaction back: there is no savepoint.
            raise BrokenBatch(exc) from exc
        cursor.execute(f"ROLLBACK TO SAVEPOINT {_NAME}")
        cursor.execute(f"RELEASE SAVEPOINT {_NAME}")
        _forget(session, known)
        _restore_notes(session, saved)
        raise
    cursor.execute(f"RELEASE SAVEPOINT {_NAME}")
    cursor.close()
    return value


def _forget(session: Session, known: set[Any]) -> None:
    """Make the session agree with the database after ROLLBACK TO SAVEPOINT."""
    for obj in list(session.new):
        session.expunge(obj)
    for key in list(session.identity_map.keys()):
        obj = session.identity_map.get(key)
        if key not in known and obj is not None:
            # Inserted by the undone write: its row is gone, and its id may be reused.
            session.expunge(obj)
    session.expire_all()
