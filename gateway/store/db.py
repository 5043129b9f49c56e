"""Engine, transactions and migrations, for SQLite (embedded) and PostgreSQL.

Every write transaction on PostgreSQL takes one advisory lock as its first
statement. Writes there were serialised anyway (each appends to the audit
chain, whose head is one row), but the head used to be locked part-way
through, after the rows the write had touched: two writers could each hold
what the other waited for, and PostgreSQL aborted one (a deadlock, answered
451 to a sending MTA). Taken first, the lock orders every writer before it
touches anything. Claims of work rows skip locked rows and wait for nothing.

SQLite runs in WAL mode with ``synchronous=FULL``, so a commit that returned
is on disk: the SMTP listener relies on that before it answers 250. Write
transactions start with ``BEGIN IMMEDIATE`` so that two writers never
deadlock upgrading a read lock; several processes wait on ``busy_timeout``.

Database work is synchronous SQLAlchemy. On SQLite reads and single
transactions run on the event loop itself (a threadpool hop per call costs
more than the work), while group commits run in a thread: one hop per batch,
and the loop is not stalled while the commit waits for the write lock (which
hfa serve's worker process may hold) or the fsync. On PostgreSQL everything
runs in worker threads, since a network round trip must not stall the loop.
"""

from __future__ import annotations

import asyncio
import copy
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from gateway.errors import StorageError
from gateway.store import schema
from gateway.store.writelock import WriterLock

T = TypeVar("T")

# At most this many writes share one commit, so one batch never holds the loop for long.
MAX_BATCH = 64
BUSY_TIMEOUT_MS = 250

# pg_advisory_xact_lock key taken first by every write transaction ("hfa", then 2).
WRITE_LOCK_KEY = 0x686661_02
_WRITE_LOCK = text(f"SELECT pg_advisory_xact_lock({WRITE_LOCK_KEY})")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # The driver's own transaction handling is switched off so that the
    # "begin" hook below decides how each transaction starts.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    # Short: a write waiting for the lock waits on the event loop. While another process
    # holds it for long, callers get a prompt 451/503 (try again) instead of a frozen
    # gateway; the gateway's own transactions take milliseconds.
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    if conn.get_execution_options().get("hfa_read_only"):
        conn.exec_driver_sql("BEGIN")
    else:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def _as_storage_error(exc: BaseException) -> BaseException:
    if isinstance(exc, SQLAlchemyError):
        error = StorageError(f"database error: {type(exc).__name__}")
        error.__cause__ = exc
        return error
    return exc


def _session_notes(session: Session) -> dict[str, Any]:
    return {k: copy.copy(v) for k, v in session.info.items() if isinstance(v, list | dict)}


def _restore_notes(session: Session, saved: dict[str, Any]) -> None:
    for key in [k for k, v in session.info.items() if isinstance(v, list | dict)]:
        if key in saved:
            session.info[key] = saved[key]
        else:
            del session.info[key]


def in_savepoint(session: Session, fn: Callable[[Session], T]) -> T:
    """Run ``fn`` in a SAVEPOINT of the open transaction; on error undo it alone and re-raise.

    What a write keeps in session.info for later in the transaction (audit lines
    to mirror, next turn numbers) goes back to how it was when its savepoint is
    undone, so the writes around it are unaffected.
    """
    saved = _session_notes(session)
    try:
        with session.begin_nested():
            return fn(session)
    except Exception:
        _restore_notes(session, saved)
        raise


def _create_private(path: Path) -> None:
    """The database file, created readable by its owner only: it holds every thread."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))


class Database:
    """One engine plus the way to run work against it from async code."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        if self.is_sqlite:
            path = url.removeprefix("sqlite:///")
            if path and path != ":memory:":
                _create_private(Path(path))
            self.engine: Engine = create_engine(
                url, echo=echo, connect_args={"check_same_thread": False}
            )
            event.listen(self.engine, "connect", _sqlite_pragmas)
            event.listen(self.engine, "begin", _sqlite_begin)
        else:
            self.engine = create_engine(url, echo=echo, pool_size=10, pool_pre_ping=True)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        # What the driver raises when a prepared statement runs on its cursor directly.
        self._driver_errors: tuple[type[Exception], ...] = (self.engine.dialect.loaded_dbapi.Error,)
        reader = self.engine.execution_options(hfa_read_only=True)
        if not self.is_sqlite:
            # One snapshot per read: under READ COMMITTED a request's status and its
            # turns, read by two statements, could straddle a commit and disagree.
            reader = reader.execution_options(isolation_level="REPEATABLE READ")
        self._reader = reader
        self._read_sessions = sessionmaker(reader, expire_on_commit=False)
        self._writer_lock: WriterLock | None = None
        if self.is_sqlite:
            path = url.removeprefix("sqlite:///")
            if path and path != ":memory:":
                self._writer_lock = WriterLock(Path(path))
        # Writes waiting for the next group commit, and the task that commits them.
        self._queued: list[tuple[Callable[[Session], Any], asyncio.Future[Any]]] = []
        self._writer: asyncio.Task[None] | None = None

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A write transaction: committed on success, rolled back on any error."""
        with self._writer_lock.held() if self._writer_lock is not None else nullcontext():
            try:
                with self._sessions.begin() as session:
                    if not self.is_sqlite:
                        session.execute(_WRITE_LOCK)
                    yield session
            except SQLAlchemyError as exc:
                raise StorageError(f"database error: {type(exc).__name__}") from exc

    @contextmanager
    def reading_rows(self) -> Iterator[Connection]:
        """A bare connection for a read that is one statement (``store.prepared``).

        One statement sees one snapshot on both databases, so no transaction is
        begun for it: on SQLite the driver runs it in autocommit, on PostgreSQL the
        driver's implicit transaction is rolled back as the connection goes back
        to the pool. Errors of the driver come out as StorageError, as elsewhere.
        """
        try:
            with self._reader.connect() as conn:
                try:
                    yield conn
                except self._driver_errors as exc:
                    raise StorageError(f"database error: {type(exc).__name__}") from exc
        except SQLAlchemyError as exc:
            raise StorageError(f"database error: {type(exc).__name__}") from exc

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A read-only transaction (no write lock on SQLite)."""
        try:
            with self._read_sessions.begin() as session:
                yield session
        except SQLAlchemyError as exc:
            raise StorageError(f"database error: {type(exc).__name__}") from exc

    async def write(self, fn: Callable[[Session], T]) -> T:
        """Run ``fn(session)`` in a write transaction; return its result once committed.

        On SQLite, writes that arrive while a batch is being gathered share one
        transaction and one commit (group commit: one fsync for many). Each runs
        in its own SAVEPOINT, so one that fails is undone alone and its caller
        gets its error; the others still commit. Nobody gets a result before
        the commit that holds their write has returned. On PostgreSQL each write
        is its own transaction in a worker thread, as with :meth:`run`.
        """
        if not self.is_sqlite:
            return await asyncio.to_thread(self._write_alone, fn)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._queued.append((fn, future))
        if self._writer is None or self._writer.done():
            self._writer = loop.create_task(self._write_batches())
        result: T = await future
        return result

    def _write_alone(self, fn: Callable[[Session], T]) -> T:
        with self.transaction() as session:
            return fn(session)

    async def _write_batches(self) -> None:
        while self._queued:
            # One turn of the loop lets the requests already read join this batch.
            await asyncio.sleep(0)
            batch = self._queued[:MAX_BATCH]
            del self._queued[:MAX_BATCH]
            try:
                # In a thread: while it waits for the write lock (another process may
                # hold it) and for the fsync, the loop goes on serving and gathering
                # the next batch. Callers are answered here, on the loop, after commit.
                outcomes = await asyncio.to_thread(self._commit_batch, batch)
            except BaseException as exc:
                # Whatever happened, no caller is left waiting.
                for _fn, future in batch:
                    if not future.done():
                        future.set_exception(_as_storage_error(exc))
                if not isinstance(exc, Exception):
                    raise
                continue
            for future, value, error in outcomes:
                if future.done():
                    continue
                if error is not None:
                    future.set_exception(error)
                else:
                    future.set_result(value)

    def _commit_batch(
        self, batch: list[tuple[Callable[[Session], Any], asyncio.Future[Any]]]
    ) -> list[tuple[asyncio.Future[Any], Any, BaseException | None]]:
        """Run the batch's writes in one transaction and commit; what each caller gets."""
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
        with self.transaction() as session:
            for fn, future in batch:
                if future.done():
                    # The caller went away before its turn: nothing was written for it.
                    continue
                try:
                    value = in_savepoint(session, fn)
                except Exception as exc:
                    outcomes.append((future, None, _as_storage_error(exc)))
                else:
                    outcomes.append((future, value, None))
        return outcomes

    async def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Run blocking database work from async code (see the module docstring)."""
        if self.is_sqlite:
            return fn(*args, **kwargs)
        return await asyncio.to_thread(partial(fn, *args, **kwargs))

    def ping(self) -> None:
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except SQLAlchemyError as exc:
            raise StorageError(f"database unreachable: {type(exc).__name__}") from exc

    def migrate(self) -> tuple[str | None, str]:
        """Apply this release's migrations (``hfa db upgrade``); returns (before, after)."""
        return schema.upgrade(self.engine, self.url)

    def ensure_schema(self) -> None:
        """Create an empty database's schema; refuse one older or newer than this release's."""
        schema.ensure(self.engine, self.url)

    def dispose(self) -> None:
        self.engine.dispose()
        if self._writer_lock is not None:
            self._writer_lock.close()
