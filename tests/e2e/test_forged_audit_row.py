"""An audit row inserted while the gateway is stopped is never signed into the log.

The review's ``forged_pending_signed`` (R6): a gateway is stopped (every entry
integrated), a ``reply.recorded`` row is inserted into its database by hand,
the gateway starts again. The sequencer refuses the row (it carries no MAC of
the gateway's), reports it in the log, and ``hfa audit verify`` exits 1 naming it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from sqlalchemy import create_engine, text

from bench.roles import HFA, ROOT
from tests.conftest import make_config
from tests.e2e.test_stop_integrates import serve


def stop(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    assert process.wait(timeout=60) == 0


def sql(database: Path, statement: str) -> list[tuple[object, ...]]:
    engine = create_engine(f"sqlite:///{database}")
    try:
        with engine.begin() as connection:
            result = connection.execute(text(statement))
            return [tuple(row) for row in result] if result.returns_rows else []
    finally:
        engine.dispose()


def verify(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``hfa audit verify`` on the gateway's data directory, as ops run it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    config = make_config(tmp_path / "var")
    env |= {f"HFA_{k.upper()}": v for k, v in config.raw.items() if v}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [*HFA, "audit", "verify"], env=env, capture_output=True, text=True, timeout=120
    )


def test_a_row_inserted_while_stopped_is_refused_and_reported(tmp_path: Path) -> None:
    process, database, _port = serve(tmp_path, "var")
    stop(process)
    sql(
        database,
        "INSERT INTO audit (at, event, reference, actor, details) VALUES "
        "('2026-12-07 12:00:00.000000', 'reply.recorded', 'HFA-00001', 'lawyer@firm.test', "
        '\'{"kind": "approval"}\')',
    )
    [(forged,)] = sql(database, "SELECT max(seq) FROM audit")
    # Seen while the gateway is stopped, before any sequencer looked at it.
    stopped = verify(tmp_path)
    assert stopped.returncode == 1 and f"entries {forged}" in stopped.stdout + stopped.stderr

    process, database, _port = serve(tmp_path, "var")
    try:
        deadline = time.monotonic() + 30
        while not sql(database, "SELECT 1 FROM audit WHERE refused IS NOT NULL"):
            assert time.monotonic() < deadline, "the forged row was never looked at"
            time.sleep(0.2)
    finally:
        stop(process)

    [(leaf, refused)] = sql(database, f"SELECT leaf_index, refused FROM audit WHERE seq = {forged}")
    assert leaf is None and "no valid MAC" in str(refused)
    # Reported in the log itself, signed: the refusal names the row.
    reports = sql(
        database,
        "SELECT details FROM audit WHERE event = 'audit.entry_refused' AND leaf_index IS NOT NULL",
    )
    assert len(reports) == 1 and f'"seq":{forged}' in str(reports[0][0]).replace(" ", "")

    after = verify(tmp_path)
    assert after.returncode == 1, after.stdout + after.stderr
    assert f"entries {forged}" in after.stdout + after.stderr
