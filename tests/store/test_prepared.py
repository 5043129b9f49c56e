"""Prepared statements write and read rows exactly as SQLAlchemy's ORM does."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from gateway import contract
from gateway.contract import iso
from gateway.intake import filing
from gateway.services import Services
from gateway.store.models import Request, Turn
from gateway.store.prepared import Prepared, prepared_insert
from gateway.store.utc_time import contract_time

_TURN = prepared_insert(Turn, ("request_id", "seq", "author", "kind", "at", "body", "data"))
_READ = Prepared(
    select(Turn.__table__.c.at, Turn.__table__.c.data, Turn.__table__.c.at).where(
        Turn.__table__.c.id == bindparam("id")
    ),
    results=(Turn.__table__.c.at.type, Turn.__table__.c.data.type, contract_time),
)


def _filed(services: Services, session: Session) -> int:
    filed = filing.file_request(services, session, {"category": "legal_review", "request": "x"})
    number = contract.number_from_reference(filed.result["reference"])
    assert number is not None
    return number


def test_a_prepared_insert_reads_back_through_the_orm_unchanged(services: Services) -> None:
    at = datetime(2026, 12, 1, 9, 30, 0, 123456, tzinfo=UTC)
    data = {"from": "counsel@firm.test", "conditions": ["Prüfung", "§ 7"], "n": 2}
    with services.db.transaction() as session:
        number = _filed(services, session)
        turn_id = _TURN.insert_id(
            session.connection(),
            {
                "request_id": number,
                "seq": 2,
                "author": "human",
                "kind": "approval",
                "at": at,
                "body": "Approved.",
                "data": data,
            },
        )
    with services.db.read_only() as session:
        turn = session.get(Turn, turn_id)
        assert turn is not None
        assert (turn.at, turn.data, turn.body, turn.seq) == (at, data, "Approved.", 2)
        moment, read_data, shown = _READ.first(session.connection(), {"id": turn_id}) or ()
    assert (moment, read_data) == (at, data)
    assert shown == iso(at) == "2026-12-01T09:30:00.123456Z"


def test_a_missing_parameter_is_an_error_not_a_null(services: Services) -> None:
    with services.db.transaction() as session:
        number = _filed(services, session)
        with pytest.raises(KeyError, match="body"):
            _TURN.insert_id(
                session.connection(),
                {
                    "request_id": number,
                    "seq": 2,
                    "author": "human",
                    "kind": "reply",
                    "at": datetime.now(UTC),
                    "data": {},
                },
            )
        assert session.scalar(select(Request.status).where(Request.id == number)) == "recorded"
