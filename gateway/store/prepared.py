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

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

from sqlalchemy import Engine, bindparam, event, insert
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement
from sqlalchemy.sql.expression import TableClause
from sqlalchemy.types import TypeEngine

from gateway.store.models import Base

T = TypeVar("T")
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


@dataclass(frozen=True)
class DriverRows:
    """A driver connection of its own (``SqliteReads``) and its dialect: prepared
    statements run on it as on a SQLAlchemy connection, without the pool's checkout."""

    dialect: Dialect
    driver: DriverConnection


def _target(conn: Connection | DriverRows) -> tuple[Dialect, DriverConnection]:
    if isinstance(conn, DriverRows):
        return conn.dialect, conn.driver
    return conn.dialect, driver_connection(conn)


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

    def _run(
        self, conn: Connection | DriverRows, params: Mapping[str, Any]
    ) -> tuple[Cursor, _Compiled]:
        dialect, driver = _target(conn)
        compiled = self._compiled(dialect)
        parameters = self._parameters(compiled, params)
        cursor: Cursor = driver.cursor()
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

    def first(
        self, conn: Connection | DriverRows, params: Mapping[str, Any]
    ) -> tuple[Any, ...] | None:
        cursor, compiled = self._run(conn, params)
        try:
            row = cursor.fetchone()
        finally:
            cursor.close()
        if row is None:
            return None
        return self._converted(compiled, row) if compiled.results else tuple(row)

    def all(
        self, conn: Connection | DriverRows, params: Mapping[str, Any]
    ) -> list[tuple[Any, ...]]:
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


_MISSING = object()
# Answers kept per thread between commits: enough for every agent polling at once.
READ_CACHE_ENTRIES = 1024


class Arrivals:
    """How many times a server has received bytes: a read whose request arrived
    before a commit count was asked may be answered by that count.

    A client can only ask for something after it has learnt of it, and whatever it
    sends after a commit arrives after that commit. So when no bytes at all have
    arrived since ``PRAGMA data_version`` was last asked, every request being served
    arrived before that question, and its answer covers them: under load one
    question serves every read of an event-loop turn, where it cost as much as the
    rest of a kept read. The server notes every arrival (``note``), before the
    request it carries is served.
    """

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def note(self) -> None:
        self.count += 1


@dataclass
class _Reader:
    rows: DriverRows
    # A cursor of the same connection, kept for the PRAGMA asked on every read.
    pragma: Any
    pid: int
    generation: int
    # PRAGMA data_version when the cache was last emptied; -1: never read.
    version: int = -1
    # Whose arrivals were counted when data_version was last asked, and their count then.
    arrivals: Arrivals | None = None
    asked_at: int = -1
    cache: OrderedDict[Hashable, Any] = field(default_factory=OrderedDict)


class SqliteReads:
    """Reads of a SQLite file on a connection of their own, one per thread, and what
    they found, kept until anything is committed to the database.

    SQLite counts the commits other connections make (``PRAGMA data_version``: any
    process, this one's writers included, since this connection only reads). A read
    asks for the count first and, when it has not changed, answers what it found the
    last time; when it has, everything kept is dropped. So an answer is never older
    than the last commit, and nothing in another process can change a row unseen.
    The count is asked before the read it stamps: a commit in between only makes
    the next read read again. A read that comes with the server's ``Arrivals`` may
    take the count asked since the last arrival, which every request being served
    arrived before.

    The connection comes from the engine's pool, detached, so it has every setting
    the engine gives its connections; it is closed when the engine is disposed.
    """

    def __init__(self, engine: Engine, capacity: int = READ_CACHE_ENTRIES) -> None:
        self._engine = engine
        self._capacity = capacity
        self._local = threading.local()
        self._lock = threading.Lock()
        self._opened: list[Any] = []
        self._generation = 0
        event.listen(engine, "engine_disposed", self._close_all)

    def _reader(self) -> _Reader:
        reader: _Reader | None = getattr(self._local, "reader", None)
        # A forked process, or a disposed engine, opens a connection of its own.
        if reader is None or reader.pid != os.getpid() or reader.generation != self._generation:
            fairy = self._engine.raw_connection()
            fairy.detach()
            driver: Any = fairy.dbapi_connection
            driver.execute("PRAGMA query_only=ON")
            with self._lock:
                self._opened.append(driver)
                generation = self._generation
            rows = DriverRows(self._engine.dialect, driver)
            reader = _Reader(rows, driver.cursor(), os.getpid(), generation)
            self._local.reader = reader
        return reader

    def read(
        self, key: Hashable, fn: Callable[[DriverRows], T], arrivals: Arrivals | None = None
    ) -> T:
        """``fn(rows)``, or what it returned for ``key`` since the last commit.

        With ``arrivals`` (the read's request arrived through the server that counts
        them), the commit count asked since the last arrival is taken as it is.
        What is returned may be returned again to later callers: they must not change it.
        """
        reader = self._reader()
        if arrivals is None or reader.arrivals is not arrivals or arrivals.count != reader.asked_at:
            self._ask_version(reader, arrivals)
        cache = reader.cache
        found = cache.get(key, _MISSING)
        if found is not _MISSING:
            cache.move_to_end(key)
            return cast(T, found)
        value = fn(reader.rows)
        cache[key] = value
        if len(cache) > self._capacity:
            cache.popitem(last=False)
        return value

    def _ask_version(self, reader: _Reader, arrivals: Arrivals | None) -> None:
        # Counted before asking: bytes that arrive meanwhile make the next read ask again.
        count = arrivals.count if arrivals is not None else -1
        try:
            ((version,),) = reader.pragma.execute("PRAGMA data_version").fetchall()
        except self._engine.dialect.loaded_dbapi.Error as exc:
            raise DBAPIError.instance(
                "PRAGMA data_version", (), exc, self._engine.dialect.loaded_dbapi.Error
            ) from exc
        if version != reader.version:
            reader.cache.clear()
            reader.version = version
        reader.arrivals, reader.asked_at = arrivals, count

    def _close_all(self, _engine: Engine) -> None:
        with self._lock:
            opened, self._opened = self._opened, []
            self._generation += 1
        for driver in opened:
            driver.close()


def sqlite_reads(engine: Engine) -> SqliteReads | None:
    """Reads with a kept answer, for a SQLite file (an in-memory database is one per
    connection, and PostgreSQL has no commit count to check against)."""
    url = engine.url
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return SqliteReads(engine)
