"""How the gateway's SQLite connections and files are set up, and how JSON is stored."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy.engine import Connection

BUSY_TIMEOUT_MS = 250


def json_text(value: Any) -> str:
    """JSON columns' text, written by orjson: every filing stores three JSON values.

    Read back alike by any JSON reader; integers beyond 64 bits, which orjson
    refuses, are written by the standard library.
    """
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value, ensure_ascii=False)


def sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # The driver's own transaction handling is switched off so that the
    # "begin" hook below decides how each transaction starts.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    # Short: a write waiting for the lock waits on the event loop. While another process
    # holds it for long, callers get a prompt 451/503 (try again) instead of a frozen
    # gateway; the gateway's own transactions take milliseconds. Set first: the next
    # statement already reads the file, which another process may hold for a moment
    # (checkpointing the WAL on its last close, or recovering it on its first open).
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    # Each write of a group commit runs in its own savepoint, whose undo journal SQLite
    # keeps in a temporary file by default: kept in memory, a write in a savepoint
    # costs what one outside does (a filing's statements took twice as long).
    cursor.execute("PRAGMA temp_store=MEMORY")
    cursor.close()


def sqlite_begin(conn: Connection) -> None:
    if conn.get_execution_options().get("hfa_read_only"):
        conn.exec_driver_sql("BEGIN")
    else:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def create_private(path: Path) -> None:
    """The database file, created readable by its owner only: it holds every thread."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
