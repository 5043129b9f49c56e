"""Statements compiled once and run on the driver's cursor: the hot paths' way in.

For the one-row inserts and reads of filing, status and recording, SQLAlchemy's
Core execution costs several times the statement itself: a cache key per call,
an execution context, result metadata, events. A :class:`Prepared` statement is
compiled once per dialect and keeps the driver's SQL text, the order of its
parameters and each parameter's and result column's converter, taken from the
same column types SQLAlchemy uses (so a row written here and one written through
the ORM are stored alike: the same JSON text, the same date-time format).
Executing it is one cursor call, inside whatever transaction the connection has
open; the driver caches the prepared statement by its text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from sqlalchemy import bindparam, insert
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement
from sqlalchemy.sql.expression import TableClause
from sqlalchemy.types import TypeEngine

from gateway.store.models import Base

Convert = Callable[[Any], Any] | None
# How a result column is read: a column type (converted as SQLAlchemy would), or a
# function of the dialect that returns the converter (a cheaper path for hot reads).
ResultReader = TypeEngine[Any] | Callable[[Dialect], Convert]


class Cursor(Protocol):
    """The part of a DB-API cursor used here."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def close(self) -> None: ...


class DriverConnection(Protocol):
    """The part of a DB-API connection used here."""

    def cursor(self) -> Any: ...


# Marks a parameter the caller must pass (a bindparam without a value).
_REQUIRED = object()


@dataclass(frozen=True)
class _Compiled:
    sql: str
    # Parameter names in the order of their placeholders (qmark), or None (named style).
    order: tuple[str, ...] | None
    # (name, converter, the value a literal in the statement carries, or _REQUIRED)
    binds: tuple[tuple[str, Convert, Any], ...]
    results: tuple[Convert, ...]


def driver_connection(conn: Connection) -> DriverConnection:
    """The DB-API connection under ``conn``, in the same transaction."""
    dbapi: DriverConnection = conn.connection.dbapi_connection  # type: ignore[assignment]
    return dbapi


class Prepared:
    """One statement, compiled for each dialect it meets, run straight on a cursor."""

    def __init__(self, statement: ClauseElement, *, results: Sequence[ResultReader] = ()) -> None:
        self.statement = statement
        # The result columns' types (a select's columns, or what an insert returns).
        self._result_types = tuple(results)
        self._by_dialect: dict[str, _Compiled] = {}

    def _compiled(self, dialect: Dialect) -> _Compiled:
        found = self._by_dialect.get(dialect.name)
        if found is not None:
            return found
        compiled = self.statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        binds = tuple(
            (
                name,
                bind.type.dialect_impl(dialect).bind_processor(dialect),
                _REQUIRED if bind.required else bind.value,
            )
            for name, bind in compiled.binds.items()
        )
        order = tuple(compiled.positiontup or ()) if dialect.positional else None
        if order is not None:
            # In the order of the placeholders, so parameters are built in one pass.
            by_name = {bind[0]: bind for bind in binds}
            binds = tuple(by_name[name] for name in order)
        results = tuple(
            reader.dialect_impl(dialect).result_processor(dialect, None)
            if isinstance(reader, TypeEngine)
            else reader(dialect)
            for reader in self._result_types
        )
        found = _Compiled(compiled.string, order, binds, results)
        self._by_dialect[dialect.name] = found
        return found

    def _parameters(self, compiled: _Compiled, params: Mapping[str, Any]) -> Any:
        # A missing parameter is a bug in the caller: KeyError, never a NULL written.
        if compiled.order is not None:
            values = []
            for name, convert, literal in compiled.binds:
                value = params[name] if literal is _REQUIRED else params.get(name, literal)
                values.append(value if convert is None else convert(value))
            return tuple(values)
        converted = {}
        for name, convert, literal in compiled.binds:
            value = params[name] if literal is _REQUIRED else params.get(name, literal)
            converted[name] = convert(value) if convert is not None else value
        return converted

    def _run(self, conn: Connection, params: Mapping[str, Any]) -> tuple[Cursor, _Compiled]:
        dialect = conn.dialect
        compiled = self._compiled(dialect)
        parameters = self._parameters(compiled, params)
        cursor: Cursor = driver_connection(conn).cursor()
        try:
            cursor.execute(compiled.sql, parameters)
        except dialect.loaded_dbapi.Error as exc:
            cursor.close()
            # The driver's error as SQLAlchemy would raise it (IntegrityError, ...), so
            # callers handle it as they handle every other database error.
            raise DBAPIError.instance(
                compiled.sql, parameters, exc, dialect.loaded_dbapi.Error, dialect=dialect
            ) from exc
        return cursor, compiled

    def execute(self, conn: Connection, params: Mapping[str, Any]) -> None:
        cursor, _compiled = self._run(conn, params)
        cursor.close()

    def _converted(self, compiled: _Compiled, row: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(
            value if convert is None or value is None else convert(value)
            for value, convert in zip(row, compiled.results, strict=True)
        )

    def first(self, conn: Connection, params: Mapping[str, Any]) -> tuple[Any, ...] | None:
        cursor, compiled = self._run(conn, params)
        try:
            row = cursor.fetchone()
        finally:
            cursor.close()
        if row is None:
            return None
        return self._converted(compiled, row) if compiled.results else tuple(row)

    def all(self, conn: Connection, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        cursor, compiled = self._run(conn, params)
        try:
            rows = cursor.fetchall()
        finally:
            cursor.close()
        if not any(compiled.results):
            return [tuple(row) for row in rows]
        return [self._converted(compiled, row) for row in rows]

    def insert_id(self, conn: Connection, params: Mapping[str, Any]) -> int:
        """Run an INSERT ... RETURNING id; the new row's id."""
        row = self.first(conn, params)
        assert row is not None
        return int(row[0])


def prepared_insert(
    model: type[Base], columns: Sequence[str], *, returning_id: bool = True
) -> Prepared:
    """``INSERT INTO <model's table> (columns) VALUES (...) [RETURNING id]``, columns by name.

    The columns are fixed: the caller passes each one, so no column default is
    left to SQLAlchemy's execution (which a cursor call does not run).
    """
    table = cast(TableClause, model.__table__)
    statement = insert(table).values({name: bindparam(name) for name in columns})
    if not returning_id:
        return Prepared(statement)
    return Prepared(statement.returning(table.c.id), results=(table.c.id.type,))


_CONNECTION = "hfa_connection"


def connection_of(session: Session) -> Connection:
    """The connection of the session's open transaction, asked of the session once.

    ``Session.connection()`` walks the session's transaction state on every call;
    a filing asks for it once per statement.
    """
    # Keyed by the innermost transaction: the session emits a SAVEPOINT only when a
    # nested transaction first asks for the connection, so each one must ask.
    transaction = session.get_nested_transaction() or session.get_transaction()
    cached = session.info.get(_CONNECTION)
    if cached is not None and cached[0] is transaction:
        connection: Connection = cached[1]
        return connection
    connection = session.connection()
    session.info[_CONNECTION] = (transaction, connection)
    return connection
