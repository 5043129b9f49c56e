"""``hfa health``: a process is live by its heartbeat's age and, on this host, by its PID."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

from gateway.services import Services
from gateway.store.models import Heartbeat, OutboxItem
from tests.clienv import run


def _a_pid_that_no_longer_runs() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _beat(services: Services, role: str, host: str, pid: int, name: str) -> None:
    now = services.clock.now()
    with services.db.transaction() as session:
        session.add(
            Heartbeat(
                process=name,
                roles=role,
                host=host,
                pid=pid,
                version="test",
                started_at=now,
                seen_at=now,
                stopped_at=None,
                keys={},
            )
        )


@pytest.fixture
def cli_env(services: Services, monkeypatch: pytest.MonkeyPatch) -> Services:
    for key in [k for k in os.environ if k.startswith("HFA_") and not k.startswith("HFA_TEST_")]:
        monkeypatch.delenv(key)
    for name, value in services.config.raw.items():
        monkeypatch.setenv(f"HFA_{name.upper()}", value)
    # A minute, as the default: the killed process is seen at once all the same.
    monkeypatch.setenv("HFA_READY_ROLE_SECONDS", "60")
    return services


def test_a_killed_process_on_this_host_is_not_live_although_its_beat_is_fresh(
    cli_env: Services, capsys: pytest.CaptureFixture[str]
) -> None:
    here = socket.gethostname()
    _beat(cli_env, "http", here, os.getpid(), "http-alive")
    _beat(cli_env, "smtp", "another-host", 1, "smtp-elsewhere")
    _beat(cli_env, "worker", here, _a_pid_that_no_longer_runs(), "worker-killed")

    code, out, _ = run(capsys, "health", "--json")
    assert code == 1
    roles = json.loads(out)["roles"]
    assert roles["http"]["live"] == 1
    assert roles["smtp"]["live"] == 1  # another host: its heartbeat is all there is to go by
    assert roles["worker"]["live"] == 0
    assert all(r["age_seconds"] >= 0 for r in roles.values())
    code, out, _ = run(capsys, "health")
    assert "worker  NONE LIVE" in out and "GONE" in out and "-0s" not in out
    assert run(capsys, "health", "--role", "http", "--role", "smtp")[0] == 0


def test_here_counts_only_this_hosts_processes(
    cli_env: Services, capsys: pytest.CaptureFixture[str]
) -> None:
    """A container's health check: a live smtp process in another container is not this one."""
    _beat(cli_env, "smtp", "another-container", 1, "smtp-elsewhere")
    assert run(capsys, "health", "--role", "smtp")[0] == 0
    assert run(capsys, "health", "--role", "smtp", "--here")[0] == 1
    _beat(cli_env, "smtp", socket.gethostname(), os.getpid(), "smtp-here")
    assert run(capsys, "health", "--role", "smtp", "--here")[0] == 0


def test_a_failed_delivery_is_shown_without_failing_the_health_check(
    cli_env: Services, capsys: pytest.CaptureFixture[str]
) -> None:
    """A queued email that can never be sent is visible to the operator in ``hfa health``."""
    here = socket.gethostname()
    for role in ("http", "smtp", "worker"):
        _beat(cli_env, role, here, os.getpid(), f"{role}-alive")
    code, out, _ = run(capsys, "health", "--json")
    assert (code, json.loads(out)["failed_outbox"]) == (0, 0)
    now = cli_env.clock.now()
    with cli_env.db.transaction() as session:
        session.add(
            OutboxItem(
                channel="email",
                purpose="receipt",
                target="lawyer@firm.test",
                payload={},
                state="dead",
                attempts=1,
                next_attempt_at=now,
                last_error="TypeError: a programming error",
                created_at=now,
            )
        )
    code, out, _ = run(capsys, "health", "--json")
    assert (code, json.loads(out)["failed_outbox"]) == (0, 1)
    code, out, _ = run(capsys, "health")
    assert "outbox: 1 email(s) or webhook call(s) FAILED" in out
    assert "hfa outbox list --failed" in out
