"""UTC moments in the tables: timezone-aware on both databases, and written and read
on SQLite as the text SQLAlchemy's DATETIME stores, by one C call each way.

SQLite drops the zone; every moment the gateway stores is UTC, so a naive one
given to a column is a bug and refused.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime
from sqlalchemy.types import TypeDecorator

from gateway.clock import iso


class UtcDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on both SQLite (which drops the zone) and PostgreSQL."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC) if value is not None else None

    def bind_processor(self, dialect: Any) -> Callable[[Any], Any] | None:
        if dialect.name == "sqlite":
            # The text SQLAlchemy's SQLite DATETIME writes ("2026-12-01 09:30:00.000000",
            # the moment's own wall clock), made by one C call instead of a format
            # string over a dict of its fields: a filing writes nine of these.
            return _sqlite_text
        return super().bind_processor(dialect)

    def result_processor(self, dialect: Any, coltype: Any) -> Callable[[Any], Any] | None:
        if dialect.name == "sqlite":
            # SQLite keeps the text SQLAlchemy wrote ("2026-12-01 09:30:00.000000", UTC):
            # read by the C parser in one step, rather than a regular expression and
            # then this decorator. Thread reads convert a dozen of these per call.
            return _utc_from_sqlite_text
        return super().result_processor(dialect, coltype)


# The last moment converted, and its text: a write stamps most of its rows (the turn, the
# status, the audit entries, the outbox email) with one and the same ``now``.
_last_converted: tuple[datetime | None, str | None] = (None, None)


def _sqlite_text(value: datetime | None) -> str | None:
    global _last_converted
    if value is None:
        return None
    last = _last_converted
    if last[0] is value:
        # The same object: a datetime never changes.
        return last[1]
    if value.tzinfo is None:
        raise ValueError("naive datetime given to a UTC column")
    text = value.replace(tzinfo=None).isoformat(" ", "microseconds")
    _last_converted = (value, text)
    return text


def contract_time(dialect: Any) -> Callable[[Any], Any]:
    """A result converter straight to the contract's date-time text (``contract.iso``).

    SQLite's stored text differs from it only in two characters; PostgreSQL's
    values are datetimes already.
    """
    if dialect.name == "sqlite":
        return _contract_time_from_sqlite_text
    return _contract_time_from_datetime


def _contract_time_from_sqlite_text(value: Any) -> str:
    if isinstance(value, str) and len(value) == _STORED_LENGTH and value[10] == " ":
        # "2026-12-01 09:30:00.000000", the only form SQLAlchemy writes.
        return f"{value[:10]}T{value[11:]}Z"
    return _contract_time_from_datetime(_utc_from_sqlite_text(value))


def _contract_time_from_datetime(value: Any) -> str:
    moment: datetime = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return iso(moment)


_STORED_LENGTH = len("2026-12-01 09:30:00.000000")


def _utc_from_sqlite_text(value: Any) -> datetime | None:
    if value is None:
        return None
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
