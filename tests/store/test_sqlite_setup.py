"""SQLite's setup: JSON columns (integers beyond 64 bits kept, small values written compactly),
and connections that wait for a file another process holds a moment."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from gateway.store.sqlite_setup import BUSY_TIMEOUT_MS, json_text, sqlite_pragmas


def test_json_columns_take_integers_beyond_64_bits() -> None:
    assert json_text({"n": 2**70, "t": "é"}) == '{"n": 1180591620717411303424, "t": "é"}'
    assert json_text({"n": 1, "t": "é"}) == '{"n":1,"t":"é"}'


# Holds the byte range of SQLite's shared locks (the lock a process takes while it
# checkpoints and removes the WAL on its last close, or recovers it on a first open),
# says so, keeps it for HOLD seconds and lets go.
_LOCKER = """
import fcntl, sys, time
with open(sys.argv[1], "r+b") as db:
    fcntl.lockf(db, fcntl.LOCK_EX, 510, 0x40000002)
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_a_connection_opened_while_another_process_holds_the_file_waits_for_it(
    tmp_path: Path,
) -> None:
    """A new connection (the worker's, a listener's, an ``hfa`` command's) that finds the
    file locked for a moment by another process waits out its busy timeout rather than
    failing with "database is locked" on its very first statement."""
    path = tmp_path / "gateway.db"
    setup = sqlite3.connect(path)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute("CREATE TABLE t (i INTEGER)")
    setup.close()
    hold = BUSY_TIMEOUT_MS / 1000 / 3
    locker = subprocess.Popen(
        [sys.executable, "-c", _LOCKER, str(path), str(hold)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
        connection = sqlite3.connect(path, timeout=0)
        sqlite_pragmas(connection, None)
        assert connection.execute("SELECT count(*) FROM t").fetchone() == (0,)
        connection.close()
    finally:
        locker.wait(timeout=10)
