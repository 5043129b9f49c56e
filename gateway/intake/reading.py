"""Reading a request back: the access-token check, its status, the read-only thread link.

A wrong token and an unknown reference get the same answer, in the same time, so
neither tells a caller which references exist.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from gateway import contract
from gateway.errors import NotFound
from gateway.store.models import Request
from gateway.store.thread import replied, thread_as_json
from gateway.tokens import DUMMY_HASH, hash_secret, secret_matches

NOT_FOUND_MESSAGE = "no request with this reference and access token"


def not_found() -> NotFound:
    # One answer for an unknown reference and a wrong token, so neither is confirmed.
    return NotFound(NOT_FOUND_MESSAGE)


def authorize(session: Session, reference: str, access_token: str) -> Request:
    """The request, if the token is its access token; the same NotFound otherwise."""
    number = contract.number_from_reference(reference)
    request = session.get(Request, number) if number is not None else None
    stored = request.access_token_hash if request is not None else DUMMY_HASH
    # Compared even for an unknown reference, so the timing does not tell them apart.
    if not secret_matches(access_token, stored) or request is None:
        raise not_found()
    return request


def status_of(session: Session, request: Request) -> dict[str, Any]:
    return _status(session, request.id, request.status, request.received_at)


def _status(
    session: Session | Connection, number: int, status: str, received_at: datetime
) -> dict[str, Any]:
    turns = thread_as_json(session, number)
    return {
        "reference": contract.reference_for(number),
        "status": status,
        "human_has_replied": replied(turns),
        "received_at": contract.iso(received_at),
        "turns": turns,
        "notice": contract.NOTICE_STATUS[status],
    }


_REQUEST_COLUMNS = Request.__table__.c
_STATUS_HEAD = select(
    _REQUEST_COLUMNS.status, _REQUEST_COLUMNS.received_at, _REQUEST_COLUMNS.access_token_hash
).where(_REQUEST_COLUMNS.id == bindparam("id"))


def check_status(
    session: Session | Connection, reference: str, access_token: str
) -> dict[str, Any]:
    """The thread, if the token is the request's access token; the same NotFound otherwise.

    Read as rows, not ORM objects (the status read is the hottest path; a bare
    connection from ``Database.reading_rows`` spares the session too), with the
    same constant-time comparison as :func:`authorize`.
    """
    number = contract.number_from_reference(reference)
    conn = session.connection() if isinstance(session, Session) else session
    row = conn.execute(_STATUS_HEAD, {"id": number}).first() if number is not None else None
    stored = row.access_token_hash if row is not None else DUMMY_HASH
    if not secret_matches(access_token, stored) or row is None or number is None:
        raise not_found()
    return _status(session, number, row.status, row.received_at)


def read_thread(session: Session, capability: str) -> dict[str, Any]:
    request = session.scalars(
        select(Request).where(Request.read_capability_hash == hash_secret(capability))
    ).first()
    if request is None:
        raise NotFound("no thread at this address")
    return status_of(session, request)
