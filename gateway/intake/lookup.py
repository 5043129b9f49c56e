"""Looking a request up for its agent: the access-token check, its status, the read-only thread link.

A wrong token and an unknown reference get the same answer, in the same time, so
neither tells a caller which references exist.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Engine, bindparam, select
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.orm import Session

from gateway import contract
from gateway.errors import NotFound
from gateway.services import Services
from gateway.store.models import Request, Turn
from gateway.store.policy_models import RequestPolicy
from gateway.store.prepared import (
    Arrivals,
    Convert,
    DriverRows,
    Prepared,
    SqliteReads,
    sqlite_reads,
)
from gateway.store.thread import replied, thread_as_json, turn_fields_as_json
from gateway.store.utc_time import contract_time
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
    conn = session.connection() if isinstance(session, Session) else session
    policy = conn.execute(
        select(_POLICY_STATE).where(bindparam("id") == _POLICY_REQUEST), {"id": number}
    ).scalar()
    with_policy(turns, policy)
    return {
        "reference": contract.reference_for(number),
        "status": status,
        "human_has_replied": replied(turns),
        "received_at": contract.iso(received_at),
        "turns": turns,
        "notice": contract.status_notice_of(status, turns),
    }


def with_policy(turns: list[dict[str, Any]], policy: dict[str, Any] | None) -> None:
    """The ``policy`` object goes on the opening request turn.

    The status object itself is closed (``additionalProperties: false`` in the
    contract); turn objects are open, and the opening turn is the request the
    policy decides.
    """
    if policy is not None and turns and turns[0]["kind"] == "request":
        turns[0]["policy"] = policy


def _as_given(_dialect: Any) -> None:
    """No converter: the value as the driver returns it."""
    return None


# A run of 19 digits may be an integer beyond 64 bits, which orjson would read as a float.
_LONG_NUMBER = re.compile(r"\d{19}")


def _json_text(text: Any) -> Any:
    """A JSON column's text as SQLite keeps it, read by orjson where it reads it alike.

    The standard library reads what orjson refuses (NaN) or would change (a long
    integer); a turn's data is decoded for each turn of every status read.
    """
    if isinstance(text, str) and _LONG_NUMBER.search(text) is None:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def _turn_data(dialect: Dialect) -> Convert:
    if dialect.name == "sqlite":
        return _json_text
    return _TURN_COLUMNS.data.type.dialect_impl(dialect).result_processor(dialect, None)


_REQUEST_COLUMNS = Request.__table__.c
_TURN_COLUMNS = Turn.__table__.c
_POLICY_STATE = RequestPolicy.__table__.c.state
_POLICY_REQUEST = RequestPolicy.__table__.c.request_id
# The request's head and its turns in one statement: one statement is one snapshot on
# both databases, so the read needs no transaction of its own (a request has at least
# its opening turn; the outer join still finds one without).
_STATUS_ROWS = Prepared(
    select(
        _REQUEST_COLUMNS.status,
        _REQUEST_COLUMNS.received_at,
        _REQUEST_COLUMNS.access_token_hash,
        _TURN_COLUMNS.author,
        _TURN_COLUMNS.kind,
        _TURN_COLUMNS.at,
        _TURN_COLUMNS.body,
        _TURN_COLUMNS.data,
        _POLICY_STATE,
    )
    .select_from(
        Request.__table__.outerjoin(
            Turn.__table__, _TURN_COLUMNS.request_id == _REQUEST_COLUMNS.id
        ).outerjoin(RequestPolicy.__table__, _REQUEST_COLUMNS.id == _POLICY_REQUEST)
    )
    .where(_REQUEST_COLUMNS.id == bindparam("id"))
    .order_by(_TURN_COLUMNS.seq),
    results=(
        _REQUEST_COLUMNS.status.type,
        contract_time,
        _REQUEST_COLUMNS.access_token_hash.type,
        _TURN_COLUMNS.author.type,
        _TURN_COLUMNS.kind.type,
        contract_time,
        _TURN_COLUMNS.body.type,
        _turn_data,
        # Repeated on every row: left as the driver gives it, and read once below.
        _as_given,
    ),
)


def check_status(conn: Connection, reference: str, access_token: str) -> dict[str, Any]:
    """The thread, if the token is the request's access token; the same NotFound otherwise.

    The hottest read: one prepared statement on a bare connection
    (``Database.read_only_rows``), with the same constant-time comparison as
    :func:`authorize`.
    """
    number = contract.number_from_reference(reference)
    stored, status = _stored_status(conn, number) if number is not None else (DUMMY_HASH, None)
    return _shown(access_token, stored, status)


def _shown(access_token: str, stored: str, status: dict[str, Any] | None) -> dict[str, Any]:
    # Compared even for an unknown reference, so the timing does not tell them apart.
    if not secret_matches(access_token, stored) or status is None:
        raise not_found()
    return status


def _stored_status(conn: Connection | DriverRows, number: int) -> tuple[str, dict[str, Any] | None]:
    """The request's access-token hash and its status object; DUMMY_HASH and None
    for an unknown reference."""
    rows = _STATUS_ROWS.all(conn, {"id": number})
    if not rows:
        return DUMMY_HASH, None
    status, received_at = rows[0][0], rows[0][1]
    turns = [
        turn_fields_as_json(author, kind, at, body, data)
        for _s, _r, _h, author, kind, at, body, data, _p in rows
        if author is not None
    ]
    state = rows[0][8]
    with_policy(turns, _json_text(state) if isinstance(state, str) else state)
    return rows[0][2], {
        "reference": contract.reference_for(number),
        "status": status,
        "human_has_replied": replied(turns),
        "received_at": received_at,
        "turns": turns,
        "notice": contract.status_notice_of(status, turns),
    }


class KeptStatus(NamedTuple):
    """What a status read keeps between commits: the hash the token is checked
    against, and the status object as the JSON text it is sent as (None: no such
    request). The text alone is kept: it is all a read sends, and a fraction of the
    objects it was made from."""

    access_token_hash: str
    body: bytes | None


def _kept(stored: tuple[str, dict[str, Any] | None]) -> KeptStatus:
    # Rendered once with the read: every read until the next commit sends these bytes.
    access_token_hash, status = stored
    return KeptStatus(access_token_hash, contract.dumps(status) if status is not None else None)


_UNKNOWN = KeptStatus(DUMMY_HASH, None)


class StatusReads:
    """Status reads on a SQLite file, each request's answer kept until the next commit.

    Agents poll their requests' status; between two commits the answer cannot
    change, so it is read (and rendered as JSON) once (``SqliteReads``). The access
    token is still checked on every call, in constant time, against the hash read
    with the answer, and an unknown reference is kept as one too: a second call
    takes the same time whether the reference exists or not.
    """

    def __init__(self, reads: SqliteReads) -> None:
        self._reads = reads

    def _kept(self, reference: str, arrivals: Arrivals | None = None) -> KeptStatus:
        number = contract.number_from_reference(reference)
        if number is None:
            return _UNKNOWN
        return self._reads.read(
            ("status", number), lambda rows: _kept(_stored_status(rows, number)), arrivals
        )

    def check_status(self, reference: str, access_token: str) -> dict[str, Any]:
        """As :func:`check_status`, read back from the kept JSON text."""
        body = self.status_body(reference, access_token)
        if body is None:
            raise not_found()
        # The standard library reads every integer exactly, as the text holds it.
        status: dict[str, Any] = json.loads(body)
        return status

    def status_body(
        self, reference: str, access_token: str, arrivals: Arrivals | None = None
    ) -> bytes | None:
        """The status object as JSON text, if the token is the request's access token;
        None otherwise (an unknown reference and a wrong token alike, in the same time).

        ``arrivals``: the server the request arrived through counts its arrivals
        (``SqliteReads.read``)."""
        kept = self._kept(reference, arrivals)
        if not secret_matches(access_token, kept.access_token_hash):
            return None
        return kept.body


def status_reads(engine: Engine) -> StatusReads | None:
    """Kept status answers where the database counts its commits (a SQLite file)."""
    reads = sqlite_reads(engine)
    return StatusReads(reads) if reads is not None else None


def kept_status(services: Services) -> StatusReads | None:
    """The one ``StatusReads`` of these services, or None where answers are not kept."""
    return services.shared(_status_reads_of)


def _status_reads_of(services: Services) -> StatusReads | None:
    return status_reads(services.db.engine)


def read_thread(session: Session, capability: str) -> dict[str, Any]:
    request = session.scalars(
        select(Request).where(Request.read_capability_hash == hash_secret(capability))
    ).first()
    if request is None:
        raise NotFound("no thread at this address")
    return status_of(session, request)
