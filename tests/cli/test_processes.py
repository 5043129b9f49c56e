"""``hfa serve`` on two processes: a worker setting that cannot be used stops it before it runs."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from pathlib import Path

from gateway.cli.preflight import EXIT_CONFIG
from tests.cli.test_run import free_port, gateway_env


def test_a_worker_configuration_error_is_one_sentence_before_running(tmp_path: Path) -> None:
    """The example config's DKIM key, before INSTALL.md's step 4 made it."""
    env = gateway_env(tmp_path, free_port(), free_port()) | {
        "HFA_DKIM_SELECTOR": "hfa2026",
        "HFA_DKIM_PRIVATE_KEY_FILE": str(tmp_path / "dkim" / "hfa2026.key"),
    }
    said = refused_start(env)
    assert "HFA_DKIM_PRIVATE_KEY_FILE" in said and "hfa2026.key" in said
    assert "Traceback" not in said
    assert "running" not in said


def test_a_database_newer_than_the_release_is_one_sentence_before_running(tmp_path: Path) -> None:
    """The schema is looked at in a short-lived process of its own: its refusal is still
    the CLI's one sentence and exit 78, from the process the user started."""
    env = gateway_env(tmp_path, free_port(), free_port())
    subprocess.run(
        [sys.executable, "-m", "gateway", "db", "upgrade"], env=env, check=True, timeout=120
    )
    with contextlib.closing(sqlite3.connect(tmp_path / "gateway.db")) as db, db:
        db.execute("UPDATE alembic_version SET version_num = 'f00dfeedbeef'")
    said = refused_start(env)
    assert "f00dfeedbeef, which is newer than this release" in said
    assert "Traceback" not in said
    assert "running" not in said


def refused_start(env: dict[str, str]) -> str:
    """``hfa serve`` that must refuse to start: exit 78 (EX_CONFIG); what it said."""
    done = subprocess.run(
        [sys.executable, "-m", "gateway", "serve"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    said = done.stdout + done.stderr
    assert done.returncode == EXIT_CONFIG, said
    return said
