"""Engine, transactions and migrations, for SQLite (embedded) and PostgreSQL.

On PostgreSQL, write transactions take no lock of their own and share no
row: each appends its audit entries as rows of its own (``store.audit``), and
the sequencer integrates them later. Rows that two writers may both change
(a request's status, its turn counter) are locked in one order, the request
first; claims of work rows skip locked rows and wait for nothing. So writers on
any number of hosts run side by side, and none can wait for another in a cycle.

SQLite runs in WAL mode with ``synchronous=FULL``, so a commit that returned
is on disk: the SMTP listener relies on that before it answers 250. Write
transactions start with ``BEGIN IMMEDIATE`` so that two writers never
deadlock upgrading a read lock; several processes wait on ``busy_timeout``.

Database work is synchronous SQLAlchemy. On SQLite reads and single
transactions run on the event loop itself (a threadpool hop per call costs
more than the work), and so do a group commit's writes while the write lock is
free; its COMMIT (the fsync) runs in a thread of its own meanwhile, and when hfa
serve's worker process holds the lock, the batch waits for it in a thread, so
the loop is not stalled either way. On PostgreSQL everything
runs in worker threads, since a network round trip must not stall the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from gateway.errors import BrokenBatch, StorageError
from gateway.store import schema
from gateway.store.pool import Pool
from gateway.store.savepoints import in_driver_savepoint
from gateway.store.savepoints import in_savepoint as in_savepoint
from gateway.store.sqlite_setup import create_private, json_text, sqlite_begin, sqlite_pragmas
from gateway.store.writelock import WriterLock

T = TypeVar("T")
# Writes waiting for a group commit, and what each of their callers gets.
Batch = list[tuple[Callable[[Session], Any], "asyncio.Future[Any]"]]
Outcomes = list[tuple["asyncio.Future[Any]", Any, BaseException | None]]

# At most this many writes share one commit, so one batch never holds the loop for long.
MAX_BATCH = 64


@contextmanager
def _storage_errors() -> Iterator[None]:
    """SQLAlchemy's errors come out as StorageError, naming only the error's type."""
    try:
        yield
    except SQLAlchemyError as exc:
        raise StorageError(f"database error: {type(exc).__name__}") from exc


def _as_storage_error(exc: BaseException) -> BaseException:
    if isinstance(exc, SQLAlchemyError):
        error = StorageError(f"database error: {type(exc).__name__}")
        error.__cause__ = exc
        return error
    return exc


class Database:
    """One engine plus the way to run work against it from async code."""

    def __init__(self, url: str, *, echo: bool = False, pool: Pool | None = None) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        if self.is_sqlite:
            path = url.removeprefix("sqlite:///")
            if path and path != ":memory:":
                create_private(Path(path))
            self.engine: Engine = create_engine(
                url,
                echo=echo,
                connect_args={"check_same_thread": False},
                json_serializer=json_text,
            )
            event.listen(self.engine, "connect", sqlite_pragmas)
            event.listen(self.engine, "begin", sqlite_begin)
        else:
            pool = pool or Pool()
            self.engine = create_engine(
                url,
                echo=echo,
                pool_size=pool.kept,
                max_overflow=pool.overflow,
                pool_pre_ping=True,
                json_serializer=json_text,
                connect_args={"application_name": pool.name},
            )
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        reader = self.engine.execution_options(hfa_read_only=True)
        if not self.is_sqlite:
            # One snapshot per read: under READ COMMITTED a request's status and its
            # turns, read by two statements, could straddle a commit and disagree.
            reader = reader.execution_options(isolation_level="REPEATABLE READ")
        self._reader = reader
        self._read_sessions = sessionmaker(reader, expire_on_commit=False)
        # One-statement writes (a claim, a lease pushed forward) commit as they end on
        # PostgreSQL: see :meth:`statement`.
        self._autocommit = (
            self.engine
            if self.is_sqlite
            else self.engine.execution_options(isolation_level="AUTOCOMMIT")
        )
        self._writer_lock: WriterLock | None = None
        if self.is_sqlite:
            path = url.removeprefix("sqlite:///")
            if path and path != ":memory:":
                self._writer_lock = WriterLock(Path(path))
        # Writes waiting for the next group commit, and the task that commits them.
        self._queued: Batch = []
        self._writer: asyncio.Task[None] | None = None
        # The thread a group commit's COMMIT (its fsync) runs in, made when first needed.
        self._committer: ThreadPoolExecutor | None = None

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A write transaction: committed on success, rolled back on any error."""
        with (
            self._writer_lock.held() if self._writer_lock is not None else nullcontext(),
            _storage_errors(),
            self._sessions.begin() as session,
        ):
            yield session

    @contextmanager
    def writing_alone(self) -> Iterator[None]:
        """The write lock without a transaction, for work SQLite runs outside one (VACUUM)."""
        with self._writer_lock.held() if self._writer_lock is not None else nullcontext():
            yield

    @contextmanager
    def statement(self) -> Iterator[Session]:
        """A session for a write that is one statement (a claim, a lease pushed forward).

        On PostgreSQL it commits as it ends (autocommit), so the rows it locks are free
        at once, not at a COMMIT that a busy process sends late, with every writer of
        them waiting. On SQLite it is a write transaction: the write lock is its only lock.
        """
        if self.is_sqlite:
            with self.transaction() as session:
                yield session
            return
        with (
            _storage_errors(),
            self._autocommit.connect() as conn,
            Session(bind=conn, expire_on_commit=False) as session,
        ):
            yield session
            session.commit()

    async def write_statement(self, fn: Callable[[Session], T]) -> T:
        """``fn(session)``, one statement, written as :meth:`statement` says; its result once
        committed. On SQLite it joins the group commit, like :meth:`write`."""
        if self.is_sqlite:
            return await self.write(fn)
        return await asyncio.to_thread(self._statement_alone, fn)

    def _statement_alone(self, fn: Callable[[Session], T]) -> T:
        with self.statement() as session:
            return fn(session)

    @contextmanager
    def read_only_rows(self) -> Iterator[Connection]:
        """A bare connection for a read that is one statement (``store.prepared``).

        One statement sees one snapshot on both databases, so no transaction is
        begun for it: on SQLite the driver runs it in autocommit, on PostgreSQL the
        driver's implicit transaction is rolled back as the connection goes back
        to the pool. Prepared statements raise the driver's errors as SQLAlchemy's, so
        they come out as StorageError, as elsewhere.
        """
        with _storage_errors(), self._reader.connect() as conn:
            yield conn

    @contextmanager
    def read_only(self) -> Iterator[Session]:
        """A read-only transaction (no write lock on SQLite)."""
        with _storage_errors(), self._read_sessions.begin() as session:
            yield session

    async def write(self, fn: Callable[[Session], T], *, heavy: bool = False) -> T:
        """Run ``fn(session)`` in a write transaction; return its result once committed.

        On SQLite, writes that arrive while a batch is being gathered share one
        transaction and one commit (group commit: one fsync for many). Each runs
        in its own SAVEPOINT, so one that fails is undone alone and its caller
        gets its error; the others still commit. Nobody gets a result before
        the commit that holds their write has returned. On PostgreSQL each write
        is its own transaction in a worker thread, as with :meth:`run`.

        ``heavy``: a write of megabytes (a large message as received). It is its own
        transaction in a thread: in a batch on the loop, its insert and fsync would
        hold every HTTP request and SMTP client of the process meanwhile.
        """
        if not self.is_sqlite or heavy:
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
                outcomes = await self._commit_where_best(batch)
            except BaseException as exc:
                # Whatever happened, no caller is left waiting.
                for _fn, future in batch:
                    if not future.done():
                        future.set_exception(_as_storage_error(exc))
                if not isinstance(exc, Exception):
                    raise
                continue
            _answer(outcomes)

    async def _commit_where_best(self, batch: Batch) -> Outcomes:
        """Write and commit the batch on the loop when the write lock is free.

        The writes are CPU work that holds the interpreter either way: in a second
        thread they only made every request wait its turn twice (the thread and the
        loop hand the interpreter back and forth), which cost more than the loop
        waiting for the commit's fsync. When another process holds the write lock
        (hfa serve's worker), the whole batch waits for it in a thread instead, so
        the loop goes on serving meanwhile. Callers are answered after the commit.
        """
        lock = self._writer_lock
        if lock is None:
            return self._commit_batch(batch)
        if not lock.try_hold():
            return await asyncio.to_thread(self._commit_batch, batch)
        session = self._sessions()
        try:
            session.begin()
            outcomes = self._writes_in(session, batch, in_driver_savepoint)
        except BaseException as exc:
            session.close()
            lock.release()
            if isinstance(exc, BrokenBatch):
                # Nothing was committed: the others again, the slow and sure way.
                return await asyncio.to_thread(self._redo_without, broken=exc, batch=batch)
            raise _as_storage_error(exc) from exc
        return await self._commit_aside(session, lock, outcomes)

    async def _commit_aside(
        self, session: Session, lock: WriterLock, outcomes: Outcomes
    ) -> Outcomes:
        """The COMMIT in a thread of its own, while the loop goes on serving.

        The fsync is a wait, not work: on the loop it stalled every connection of
        the process for its length. The thread is this database's alone: a commit
        must never queue behind threads that wait for the write lock it holds.
        """
        if self._committer is None:
            self._committer = ThreadPoolExecutor(1, thread_name_prefix="hfa-commit")
        loop = asyncio.get_running_loop()
        commit = loop.run_in_executor(
            self._committer, self._commit_and_let_go, session, lock, outcomes
        )
        try:
            return await asyncio.shield(commit)
        except asyncio.CancelledError:
            # The commit goes on in its thread whatever happens here: its callers learn
            # its true outcome before the cancellation does.
            while not commit.done():
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.shield(commit)
            if not commit.cancelled() and commit.exception() is None:
                _answer(commit.result())
            raise

    def _commit_and_let_go(
        self, session: Session, lock: WriterLock, outcomes: Outcomes
    ) -> Outcomes:
        try:
            with _storage_errors():
                session.commit()
        finally:
            session.close()
            lock.release()
        return outcomes

    def _commit_batch(self, batch: Batch) -> Outcomes:
        """Run the batch's writes in one transaction and commit; what each caller gets.

        Each write runs in a driver-level savepoint. If one fails in a way that ends
        the transaction (a failed flush), nothing was committed: it gets its error and
        the others run again in a new transaction, with the ORM's savepoints.
        """
        try:
            with self.transaction() as session:
                return self._writes_in(session, batch, in_driver_savepoint)
        except BrokenBatch as broken:
            return self._redo_without(broken, batch)

    def _redo_without(self, broken: BrokenBatch, batch: Batch) -> Outcomes:
        """The batch but the write that ended its transaction, each write in an ORM savepoint."""
        culprit = broken.culprit
        rest = [(fn, future) for fn, future in batch if future is not culprit]
        failed = (culprit, None, _as_storage_error(broken.error))
        with self.transaction() as session:
            return [failed, *self._writes_in(session, rest, in_savepoint)]

    def _writes_in(
        self,
        session: Session,
        batch: Batch,
        savepoint: Callable[[Session, Callable[[Session], Any]], Any],
    ) -> Outcomes:
        outcomes: Outcomes = []
        for fn, future in batch:
            if future.done():
                # The caller went away before its turn: nothing was written for it.
                continue
            try:
                value = savepoint(session, fn)
            except BrokenBatch as broken:
                broken.culprit = future
                raise
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
        if self._committer is not None:
            self._committer.shutdown(wait=True)
        self.engine.dispose()
        if self._writer_lock is not None:
            self._writer_lock.close()


# asyncio's Future, answered as its protocol wants (done ones skipped, an error or a
# result); outbound.outbox answers its own futures the same way, with no value to pass.
def _answer(outcomes: Outcomes) -> None:
    """Each caller of a committed batch gets its result or its error."""
    for future, value, error in outcomes:
        if future.done():
            continue
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)
