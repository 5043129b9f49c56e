"""Engine, transactions and migrations, for SQLite (embedded) and PostgreSQL.

SQLite runs in WAL mode with ``synchronous=FULL``, so a commit that returned
is on disk: the SMTP listener relies on that before it answers 250. Write
transactions start with ``BEGIN IMMEDIATE`` so that two writers never
deadlock upgrading a read lock; several processes wait on ``busy_timeout``.

Database work is synchronous SQLAlchemy. On SQLite it runs on the event loop
itself: the one writer is the point, and a threadpool hop per call costs
more than the commit. On PostgreSQL it runs in a worker thread, since a
network round trip must not stall the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from gateway.errors import StorageError

T = TypeVar("T")

_MIGRATIONS = Path(__file__).with_name("migrations")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # The driver's own transaction handling is switched off so that the
    # "begin" hook below decides how each transaction starts.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    if conn.get_execution_options().get("hfa_read_only"):
        conn.exec_driver_sql("BEGIN")
    else:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


class Database:
    """One engine plus the way to run work against it from async code."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        if self.is_sqlite:
            path = url.removeprefix("sqlite:///")
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.engine: Engine = create_engine(
                url, echo=echo, connect_args={"check_same_thread": False}
            )
            event.listen(self.engine, "connect", _sqlite_pragmas)
            event.listen(self.engine, "begin", _sqlite_begin)
        else:
            self.engine = create_engine(url, echo=echo, pool_size=10, pool_pre_ping=True)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._read_sessions = sessionmaker(
            self.engine.execution_options(hfa_read_only=True), expire_on_commit=False
        )

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A write transaction: committed on success, rolled back on any error."""
        try:
            with self._sessions.begin() as session:
                yield session
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

    def migrate(self) -> None:
        """Bring the schema to the newest Alembic revision."""
        from alembic import command
        from alembic.config import Config as AlembicConfig

        cfg = AlembicConfig()
        cfg.set_main_option("script_location", str(_MIGRATIONS))
        cfg.attributes["connection_url"] = self.url
        try:
            with self.engine.begin() as conn:
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
        except SQLAlchemyError as exc:
            raise StorageError(f"migration failed: {exc}") from exc

    def dispose(self) -> None:
        self.engine.dispose()
