"""``hfa serve``, ``hfa demo`` and ``hfa mail`` as a newcomer runs them: real processes."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from gateway.cli import main


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def gateway_env(data_dir: Path, http_port: int, smtp_port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update(
        {
            "HFA_DATA_DIR": str(data_dir),
            "HFA_HTTP_BIND": f"127.0.0.1:{http_port}",
            "HFA_SMTP_BIND": f"127.0.0.1:{smtp_port}",
            "HFA_LAWYERS": "counsel@lawfirm.example",
            "HFA_WORKER_POLL_SECONDS": "0.05",
        }
    )
    return env


def test_serve_runs_with_embedded_defaults_and_stops_on_sigterm(tmp_path: Path) -> None:
    http_port, smtp_port = free_port(), free_port()
    env = gateway_env(tmp_path, http_port, smtp_port)
    proc = subprocess.Popen(
        [sys.executable, "-m", "gateway", "serve"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{http_port}"
        # A bound on the wait, not on speed: a loaded machine took over 30 s to start it.
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, "hfa serve exited early"
            assert time.monotonic() < deadline, "hfa serve did not come up"
            time.sleep(0.1)
        filed = httpx.post(
            f"{base}/v1/requests", json={"category": "legal_review", "request": "Check the NDA."}
        ).json()
        assert filed["thread_url"].startswith(base)
        # Without a relay, mail lands in the Maildir for a newcomer to read.
        deadline = time.monotonic() + 10
        while not list((tmp_path / "maildir" / "new").glob("*")):
            assert time.monotonic() < deadline, "no mail written to the Maildir"
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0, output
    assert f"127.0.0.1:{http_port}" in output and f"127.0.0.1:{smtp_port}" in output
    assert "maildir" in output.lower()
    assert "Traceback" not in output
    assert (tmp_path / "secret_keys").exists()
    assert "HFA_SECRET_KEYS is not set" in output
    assert (tmp_path / "secret_keys").read_text().strip() not in output


def test_demo_shows_each_step_of_a_round_trip_and_leaves_nothing_behind(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    # Its temporary directory goes where TMPDIR says: there, nothing may be left.
    (tmp_path / "tmp").mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "gateway", "demo"],
        env=env | {"TMPDIR": str(tmp_path / "tmp")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for step in (
        "1. An agent files a request",
        "2. The email as the lawyer receives it",
        "3. The lawyer replies",
        "4. The agent reads the thread back",
    ):
        assert step in out
    assert "Reply-To: HFA-00001 answers <reply+" in out
    assert '"human_has_replied": true' in out
    # The demo's lawyer approves with two conditions: never a bare approval.
    assert '"kind": "conditional_approval"' in out
    assert '"attach the signed NDA"' in out
    assert list((tmp_path / "tmp").iterdir()) == []
    assert "The demo's data was removed" in out
    # Ops output without log lines: what the demo printed is its walk-through only.
    assert " INFO " not in result.stderr, result.stderr


def test_bad_setting_exits_78_with_the_setting_named(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HFA_SMTP_BIND", "nonsense")
    assert main(["serve"]) == 78  # EX_CONFIG: the units do not retry it
    assert "HFA_SMTP_BIND" in capsys.readouterr().err


def test_settings_lists_every_variable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["settings"]) == 0
    out = capsys.readouterr().out
    assert "HFA_REPLY_DOMAIN" in out and "HFA_SMTP_RELAY" in out


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def start_serve(tmp_path: Path, *args: str, poll: str = "30") -> tuple[subprocess.Popen[str], str]:
    """``hfa serve`` with a long worker poll: work must be found through the wake-up."""
    http_port, smtp_port = free_port(), free_port()
    env = gateway_env(tmp_path, http_port, smtp_port) | {"HFA_WORKER_POLL_SECONDS": poll}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gateway", "serve", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{http_port}"
    # A bound on the wait, not on speed: a loaded machine took over 30 s to start it.
    deadline = time.monotonic() + 90
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.TransportError:
            pass
        assert proc.poll() is None, "hfa serve exited early"
        assert time.monotonic() < deadline, "hfa serve did not come up"
        time.sleep(0.1)


def wait_until(check: Callable[[], object], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def audit_roles(data_dir: Path) -> list[tuple[str, list[str]]]:
    """Both processes' start and stop entries, read from the database (all are committed;
    the mirror holds those integrated before the worker stopped)."""
    with contextlib.closing(sqlite3.connect(data_dir / "gateway.db")) as db:
        rows = db.execute(
            "SELECT event, details FROM audit "
            "WHERE event IN ('gateway.started', 'gateway.stopped') ORDER BY seq"
        ).fetchall()
    return [(event, json.loads(details).get("roles", [])) for event, details in rows]


def test_serve_runs_the_workers_in_a_second_process_and_stops_both(tmp_path: Path) -> None:
    proc, base = start_serve(tmp_path)
    try:
        (worker,) = children(proc.pid)
        httpx.post(f"{base}/v1/requests", json={"category": "legal_review", "request": "NDA?"})
        # Sent by the worker process within seconds, though it polls only every 30 s.
        wait_until(
            lambda: list((tmp_path / "maildir" / "new").glob("*")), 5, "the worker was not woken"
        )
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, output
    assert not alive(worker)
    assert f"worker process {worker} running" in output and "Traceback" not in output
    assert sorted(audit_roles(tmp_path)) == [
        ("gateway.started", ["http", "smtp"]),
        ("gateway.started", ["worker"]),
        ("gateway.stopped", []),
        ("gateway.stopped", []),
    ]


def test_sigint_stops_both_processes(tmp_path: Path) -> None:
    proc, _base = start_serve(tmp_path)
    (worker,) = children(proc.pid)
    # Ctrl-C in a terminal signals both; the parent alone must do as well.
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, output
    assert not alive(worker)


def test_a_worker_that_dies_takes_the_gateway_down_with_an_error(tmp_path: Path) -> None:
    proc, _base = start_serve(tmp_path)
    (worker,) = children(proc.pid)
    os.kill(worker, signal.SIGKILL)
    output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert f"the worker process {worker} exited" in output


def test_the_worker_stops_when_the_listeners_are_killed(tmp_path: Path) -> None:
    proc, _base = start_serve(tmp_path)
    (worker,) = children(proc.pid)
    proc.kill()
    # The killed process itself, not its output: the worker holds the same pipe open
    # until it has stopped, which may take each of its tasks its 10 s to end.
    proc.wait(timeout=10)
    # A bound on the wait, not on speed (a loaded machine's worker stops more slowly).
    wait_until(lambda: not alive(worker), 60, "the worker outlived the listeners")
    proc.communicate(timeout=10)


@pytest.mark.parametrize("args", [("--single-process",), ("--role", "http", "--role", "worker")])
def test_single_process_and_roles_keep_one_process(tmp_path: Path, args: tuple[str, ...]) -> None:
    proc, _base = start_serve(tmp_path, *args, poll="0.05")
    try:
        assert children(proc.pid) == []
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, output
