"""Ops commands print their result and nothing else: no log line of the audit entries they
write (those are in the audit log), no INFO chatter before the answer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def hfa(data_dir: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env |= {"HFA_DATA_DIR": str(data_dir), "HFA_LAWYERS": "a@x.example", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "gateway", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_ops_commands_print_their_result_without_log_lines(tmp_path: Path) -> None:
    assert hfa(tmp_path, "db", "upgrade").returncode == 0
    created = hfa(tmp_path, "keys", "create", "research-bot")
    assert created.returncode == 0, created.stderr
    assert created.stdout.startswith("hfak_")
    assert created.stderr == ""
    revoked = hfa(tmp_path, "keys", "revoke", "research-bot")
    assert revoked.returncode == 0, revoked.stderr
    assert revoked.stderr == ""
    # The entries are written all the same: the audit log has them.
    tail = hfa(tmp_path, "audit", "tail", "--event", "api_key.*")
    assert "api_key.created" in tail.stdout and "api_key.revoked" in tail.stdout
    assert tail.stderr == ""
