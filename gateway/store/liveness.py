"""Which processes are live: the heartbeat rows judged by age and, on this host, by PID.

Read without SQLAlchemy: ``hfa health`` is a container's health check every 30 s,
and the ORM alone costs it more than the rest of the command. The rows are read
with the database's own driver (sqlite3, or psycopg for PostgreSQL), read-only;
``heartbeats`` writes them and judges them with the same rules.
"""

from __future__ import annotations

import os
import socket
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from gateway.errors import ConfigError

ROLES = ("http", "smtp", "worker")
_SELECT_BEATS = (
    "SELECT roles, host, pid, version, started_at, seen_at, stopped_at FROM heartbeats ORDER BY id"
)


class Beating(Protocol):
    """What the rules read of a heartbeat row (the ORM's, or one read here)."""

    @property
    def roles(self) -> str: ...
    @property
    def host(self) -> str: ...
    @property
    def pid(self) -> int: ...
    @property
    def seen_at(self) -> datetime: ...
    @property
    def stopped_at(self) -> datetime | None: ...


@dataclass(frozen=True)
class Beat:
    """One heartbeat row, as read here."""

    roles: str
    host: str
    pid: int
    version: str
    started_at: datetime
    seen_at: datetime
    stopped_at: datetime | None


@dataclass(frozen=True)
class RoleHealth:
    role: str
    live: int
    last_seen: datetime | None


def process_exists(host: str, pid: int) -> bool | None:
    """Whether process ``pid`` runs, when it would run on this host; None: cannot tell here."""
    if host != socket.gethostname():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    return True


def is_live(row: Beating, since: datetime) -> bool:
    """Seen recently, not stopped, and, on this host, its process still there.

    A SIGKILLed process writes no stopped mark; its row would look live until the
    heartbeat ages out. On the host it ran on, its PID says at once that it is gone.
    """
    if row.stopped_at is not None or row.seen_at < since:
        return False
    return process_exists(row.host, row.pid) is not False


def roles_health_of(
    rows: Sequence[Beating], now: datetime, within: float, *, here_only: bool = False
) -> list[RoleHealth]:
    """For each role: how many live processes run it, and when one was last seen.

    ``here_only``: only the processes of this host (a container's own health check).
    """
    if here_only:
        rows = [r for r in rows if r.host == socket.gethostname()]
    since = now - timedelta(seconds=within)
    out: list[RoleHealth] = []
    for role in ROLES:
        having = [r for r in rows if role in r.roles.split(",")]
        live = [r for r in having if is_live(r, since)]
        last = max((r.seen_at for r in having), default=None)
        out.append(RoleHealth(role, len(live), last))
    return out


def no_gateway(where: str, data_dir: Path) -> ConfigError:
    return ConfigError(
        f"no gateway database at {where} (HFA_DATA_DIR {data_dir}): run 'hfa serve' or "
        "'hfa db upgrade' first, or set HFA_DATA_DIR or HFA_DATABASE_URL (or --config) to "
        "where the gateway keeps its data"
    )


def _utc(value: Any) -> datetime:
    # SQLite keeps the text SQLAlchemy wrote: "2026-12-01 09:30:00.000000", in UTC.
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _beat(row: Sequence[Any]) -> Beat:
    roles, host, pid, version, started, seen, stopped = row
    return Beat(
        str(roles),
        str(host),
        int(pid),
        str(version),
        _utc(started),
        _utc(seen),
        _utc(stopped) if stopped is not None else None,
    )


def _shown(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


def read_beats(url: str, data_dir: Path) -> list[Beat]:
    """Every heartbeat row of the gateway at ``url``; ConfigError, in one sentence, where
    there is no gateway database or it cannot be reached. Never creates anything."""
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        if path in ("", ":memory:") or not Path(path).is_file():
            raise no_gateway(path or url, data_dir)
        return _read_sqlite(path, data_dir)
    return _read_postgres(url, data_dir)


def _read_sqlite(path: str, data_dir: Path) -> list[Beat]:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
            ).fetchone()
            if found is None:
                raise no_gateway(path, data_dir)
            return [_beat(r) for r in conn.execute(_SELECT_BEATS)]
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise ConfigError(f"cannot read the database at {path} ({exc})") from None


def _read_postgres(url: str, data_dir: Path) -> list[Beat]:
    import psycopg  # only a PostgreSQL gateway's health check loads its driver

    scheme, _, rest = url.partition("://")
    libpq = "postgresql://" + rest if scheme.startswith("postgres") else url
    try:
        with psycopg.connect(libpq, connect_timeout=10) as conn:
            exists = conn.execute("SELECT to_regclass('alembic_version')").fetchone()
            if exists is None or exists[0] is None:
                raise no_gateway(_shown(url), data_dir)
            rows = conn.execute(_SELECT_BEATS).fetchall()
    except psycopg.Error as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ConfigError(f"cannot reach the database at {_shown(url)} ({first})") from None
    return [_beat(r) for r in rows]
