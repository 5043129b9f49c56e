"""Ops commands print their result and nothing else (no log line of the audit entries they
write: those are in the audit log), and exit with the README's statuses."""

from __future__ import annotations

import os
import signal
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


def test_audit_exit_statuses_are_the_readmes(tmp_path: Path) -> None:
    """3 for an entry that does not exist; 130 for a follow stopped with Ctrl-C."""
    assert hfa(tmp_path, "db", "upgrade").returncode == 0
    assert hfa(tmp_path, "keys", "create", "research-bot").returncode == 0
    missing = hfa(tmp_path, "audit", "proof", "99999")
    assert missing.returncode == 3, missing.stderr
    assert missing.stderr.strip() == "hfa: no audit entry 99999"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env |= {"HFA_DATA_DIR": str(tmp_path), "HFA_LAWYERS": "a@x.example", "PYTHONPATH": str(ROOT)}
    follow = subprocess.Popen(
        [sys.executable, "-m", "gateway", "audit", "tail", "-f", "--interval", "0.1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert follow.stdout is not None
        # Following once the entry already written is shown.
        assert "api_key.created" in follow.stdout.readline()
        follow.send_signal(signal.SIGINT)
        assert follow.wait(30) == 130
    finally:
        if follow.poll() is None:
            follow.kill()
            follow.wait(10)
