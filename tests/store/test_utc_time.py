"""UTC moments as SQLite stores them: written and read back the same, naive ones refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import create_engine, select
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import Session

from gateway.store.models import Base, Request
from gateway.store.utc_time import UtcDateTime, contract_time

WRITE = UtcDateTime().bind_processor(sqlite.dialect())
READ = UtcDateTime().result_processor(sqlite.dialect(), None)
MOMENTS = st.datetimes(
    min_value=datetime(1970, 1, 2), max_value=datetime(9998, 12, 31), timezones=st.just(UTC)
)


@given(MOMENTS, MOMENTS)
def test_each_moment_is_written_as_its_own_text(first: datetime, second: datetime) -> None:
    # Two moments in a row, the first written twice: the second never gets the first's text.
    assert WRITE is not None and READ is not None
    for moment in (first, first, second, first):
        text = WRITE(moment)
        assert text == moment.replace(tzinfo=None).isoformat(" ", "microseconds")
        assert READ(text) == moment


def test_a_moment_is_written_as_its_wall_clock_as_sqlalchemy_writes_it() -> None:
    # Every moment the gateway makes is UTC (clock.now); the text is its wall clock, the
    # same text SQLAlchemy's own SQLite DATETIME writes, whatever was converted before.
    assert WRITE is not None
    moment = datetime(2026, 12, 4, 9, 30, tzinfo=UTC)
    assert WRITE(moment) == "2026-12-04 09:30:00.000000"
    assert WRITE(moment.astimezone(timezone(timedelta(hours=2)))) == "2026-12-04 11:30:00.000000"
    assert WRITE(moment) == "2026-12-04 09:30:00.000000"


def test_a_naive_moment_is_refused_even_right_after_an_aware_one() -> None:
    assert WRITE is not None
    aware = datetime(2026, 12, 4, 9, 30, tzinfo=UTC)
    WRITE(aware)
    with pytest.raises(ValueError, match="naive datetime"):
        WRITE(aware.replace(tzinfo=None))


def test_the_contract_text_comes_straight_from_the_stored_text() -> None:
    convert = contract_time(sqlite.dialect())
    assert convert("2026-12-04 09:30:00.000000") == "2026-12-04T09:30:00.000000Z"


def test_a_request_row_keeps_its_moment() -> None:
    engine = create_engine("sqlite://")
    Base.metadata.create_all(engine)
    moment = datetime(2026, 12, 4, 9, 30, 15, 123456, tzinfo=UTC)
    with Session(engine) as session:
        session.add(
            Request(category="legal_review", urgency="routine", status="recorded", fields={},
                    access_token_hash="h", read_capability_hash="c", received_at=moment,
                    updated_at=moment + timedelta(seconds=1))
        )  # fmt: skip
        session.commit()
        received, updated = session.execute(select(Request.received_at, Request.updated_at)).one()
    assert received == moment
    assert updated == moment + timedelta(seconds=1)
