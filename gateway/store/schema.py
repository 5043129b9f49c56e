"""The database schema's revision: upgrade it under a lock, and refuse one that does not match.

``hfa db upgrade`` applies this release's Alembic migrations. Every process
that starts takes the same lock first (a PostgreSQL advisory lock; on SQLite
an ``flock`` on a file beside the database), so roles started together on a
fresh database never race: one creates the schema, the others wait and find
it done. A role then runs only on the schema it was written for: an empty
database is created, but one that is older (an upgrade not yet applied) or
newer (a later release ran, then this one was started) is refused with one
sentence saying what to do, never a traceback.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from gateway.errors import SchemaMismatch, StorageError

if TYPE_CHECKING:
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory

MIGRATIONS = Path(__file__).with_name("migrations")
# pg_advisory_xact_lock key for schema changes ("hfa" 0x6866_61, then 1).
MIGRATION_LOCK_KEY = 0x686661_01


def _script() -> tuple[AlembicConfig, ScriptDirectory]:
    # Alembic is imported only when the schema is looked at (a second of start-up).
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory

    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg, ScriptDirectory.from_config(cfg)


def code_revision() -> str:
    """The newest revision this release knows."""
    head = _script()[1].get_current_head()
    if head is None:
        raise StorageError("this release has no schema migrations")
    return head


def knows(revision: str) -> bool:
    from alembic.util.exc import CommandError

    try:
        return _script()[1].get_revision(revision) is not None
    except CommandError:
        return False


def _current(conn: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    revision: str | None = MigrationContext.configure(conn).get_current_revision()
    return revision


def current_revision(engine: Engine) -> str | None:
    """The database's revision; None for a database with no schema yet."""
    try:
        with engine.connect() as conn:
            return _current(conn)
    except SQLAlchemyError as exc:
        raise StorageError(f"cannot read the schema revision: {type(exc).__name__}") from exc


@contextmanager
def _file_lock(url: str) -> Iterator[None]:
    path = url.removeprefix("sqlite:///")
    if not url.startswith("sqlite") or not path or path == ":memory:":
        yield
        return
    lock = Path(path + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


@contextmanager
def locked(engine: Engine, url: str) -> Iterator[Connection]:
    """A transaction holding the schema lock, for as long as the block runs."""
    with _file_lock(url), engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
        yield conn


def _upgrade(conn: Connection, url: str) -> None:
    from alembic import command

    cfg, _ = _script()
    cfg.attributes["connection_url"] = url
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, "head")


def upgrade(engine: Engine, url: str) -> tuple[str | None, str]:
    """Apply every migration this release has; returns (revision before, revision after)."""
    try:
        with locked(engine, url) as conn:
            before = _current(conn)
            if before is not None and not knows(before):
                raise _newer(before)
            _upgrade(conn, url)
            return before, code_revision()
    except SQLAlchemyError as exc:
        raise StorageError(f"migration failed: {type(exc).__name__}: {exc}") from exc


def _newer(revision: str) -> SchemaMismatch:
    return SchemaMismatch(
        f"the database schema is at revision {revision}, which is newer than this release "
        f"of hfa-gateway knows (its newest is {code_revision()}): run the release that "
        "upgraded it, or restore the backup taken before the upgrade"
    )


def ensure(engine: Engine, url: str) -> None:
    """Create the schema of an empty database; refuse one older or newer than this release's."""
    try:
        with locked(engine, url) as conn:
            current = _current(conn)
            head = code_revision()
            if current is None:
                _upgrade(conn, url)
            elif current != head:
                if not knows(current):
                    raise _newer(current)
                raise SchemaMismatch(
                    f"the database schema is at revision {current}, older than this "
                    f"release's {head}: run 'hfa db upgrade' once, then start the roles"
                )
    except SQLAlchemyError as exc:
        raise StorageError(f"migration failed: {type(exc).__name__}: {exc}") from exc
