"""The gateway's database read with its own driver (sqlite3, psycopg), read-only, no ORM.

For the ops commands run often that only read a table or two (``hfa health`` as a
container's health check, ``hfa requests list``): SQLAlchemy's ORM alone costs them
more than the rest of the command. Queries are written with ``?`` placeholders;
``read`` refuses, in one sentence, where there is no gateway database, and never
creates anything.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from gateway.errors import ConfigError


def no_gateway(where: str, data_dir: Path) -> ConfigError:
    return ConfigError(
        f"no gateway database at {where} (HFA_DATA_DIR {data_dir}): run 'hfa serve' or "
        "'hfa db upgrade' first, or set HFA_DATA_DIR or HFA_DATABASE_URL (or --config) to "
        "where the gateway keeps its data"
    )


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def moment(value: datetime, url: str) -> Any:
    """A UTC moment as a query parameter: SQLite compares the text SQLAlchemy writes."""
    if is_sqlite(url):
        return value.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")
    return value


def utc(value: Any) -> datetime:
    """A stored moment, read back: SQLite's text ("2026-12-01 09:30:00.000000", UTC)."""
    read = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return read.replace(tzinfo=UTC) if read.tzinfo is None else read.astimezone(UTC)


def utc_or_none(value: Any) -> datetime | None:
    return None if value is None else utc(value)


def json_value(value: Any) -> Any:
    """A JSON column, read back: text on SQLite, already decoded on PostgreSQL."""
    return json.loads(value) if isinstance(value, str | bytes) else value


def shown_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


def read(url: str, data_dir: Path, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """The rows of one query on the gateway's database at ``url``."""
    if is_sqlite(url):
        path = url.removeprefix("sqlite:///")
        if path in ("", ":memory:") or not Path(path).is_file():
            raise no_gateway(path or url, data_dir)
        return _read_sqlite(path, data_dir, sql, params)
    return _read_postgres(url, data_dir, sql, params)


def _read_sqlite(
    path: str, data_dir: Path, sql: str, params: Sequence[Any]
) -> list[tuple[Any, ...]]:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
            ).fetchone()
            if found is None:
                raise no_gateway(path, data_dir)
            return list(conn.execute(sql, tuple(params)))
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise ConfigError(
            f"cannot read the database at {path} ({exc}): 'hfa db status' says whether it "
            "holds this release's schema"
        ) from None


def _read_postgres(
    url: str, data_dir: Path, sql: str, params: Sequence[Any]
) -> list[tuple[Any, ...]]:
    import psycopg  # only a PostgreSQL gateway's commands load its driver

    scheme, _, rest = url.partition("://")
    libpq = "postgresql://" + rest if scheme.startswith("postgres") else url
    try:
        with psycopg.connect(libpq, connect_timeout=10) as conn:
            exists = conn.execute("SELECT to_regclass('alembic_version')").fetchone()
            if exists is None or exists[0] is None:
                raise no_gateway(shown_url(url), data_dir)
            return conn.execute(sql.replace("?", "%s"), tuple(params)).fetchall()  # type: ignore[arg-type]
    except psycopg.Error as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ConfigError(
            f"cannot read the database at {shown_url(url)} ({first}): 'hfa db status' says "
            "whether it is reachable and holds this release's schema"
        ) from None
