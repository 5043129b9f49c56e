"""A REJECT acknowledged inside the correction window wins, even when it is read after it.

The review's case R1, over real sockets: ``hfa serve`` (listeners and the forked
worker), a typed "Approved." held for its window, then the lawyer taps REJECT.
The listener answers 250 inside the window, but the worker is stalled (SIGSTOP)
and does not read it: either the whole gateway is then killed with SIGKILL at
once, or the stall lasts past the window's end before the kill. Restarted after
the window's end, the gateway must record the rejection and never the approval:
no approval turn, no approval pushed, one push (the rejection).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import smtplib
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, func, select

from bench.roles import HFA, ROOT, free_port, http_up, wait_until
from gateway.outbound.transports import read_maildir
from gateway.store.models import OutboxItem
from tests.conftest import LAWYER
from tests.dnskit import empty_dns
from tests.e2e.test_correction_window import tapped
from tests.mailkit import reply_to

WINDOW_SECONDS = 12


def _env(data_dir: Path, database_url: str, http_port: int, smtp_port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update(
        PYTHONPATH=str(ROOT),
        HFA_DATA_DIR=str(data_dir),
        HFA_DATABASE_URL=database_url,
        HFA_HTTP_BIND=f"127.0.0.1:{http_port}",
        HFA_SMTP_BIND=f"127.0.0.1:{smtp_port}",
        HFA_SECRET_KEYS="window-crash-key-0123456789abcdef",
        HFA_LAWYERS=LAWYER,
        HFA_REPLY_DOMAIN="reply.hfa.test",
        HFA_WORKER_POLL_SECONDS="0.1",
        HFA_LEASE_SECONDS="2",
        HFA_DNS_RESOLVER=empty_dns(),
        HFA_CORRECTION_WINDOW=f"{WINDOW_SECONDS}s",
        # Unsigned replies: a decision is recorded on the reply address alone.
        HFA_WEAK_SENDER_DECISIONS="record",
        # The pushes go to a loopback port nobody listens on: queued, counted, never sent.
        HFA_WEBHOOK_ALLOW_PRIVATE="1",
    )
    return env


class Gateway:
    """``hfa serve`` in a session of its own, started again on the same ports and data."""

    def __init__(self, data_dir: Path, database_url: str) -> None:
        self.data_dir, self.database_url = data_dir, database_url
        self.http_port, self.smtp_port = free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.http_port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with (self.data_dir.parent / "serve.log").open("ab") as out:
            self.proc = subprocess.Popen(
                [*HFA, "serve"],
                env=_env(self.data_dir, self.database_url, self.http_port, self.smtp_port),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_until("the gateway", lambda: http_up(self.base), time.monotonic() + 60)

    def stall_worker(self) -> None:
        """SIGSTOP every process of the gateway but the listeners (the worker, its reader).

        On SQLite, a worker stopped while it holds the one write lock (or waits for
        it) stops the listeners' writes too, so no 250 comes: that is a stopped
        database, not the stalled reader this test is about. The stop is therefore
        taken again, after a moment's run, until it lands with the lock free.
        """
        assert self.proc is not None
        deadline = time.monotonic() + 30
        while True:
            stopped = self._signal_worker(signal.SIGSTOP)
            assert stopped, "no worker process to stall"
            if self._write_lock_free(time.monotonic() + 1):
                return
            assert time.monotonic() < deadline, "the worker never let go of the write lock"
            self._signal_worker(signal.SIGCONT)
            time.sleep(0.05)

    def _signal_worker(self, signum: int) -> list[int]:
        assert self.proc is not None
        signalled = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == self.proc.pid:
                continue
            with contextlib.suppress(OSError):
                if os.getpgid(int(entry.name)) == self.proc.pid:
                    os.kill(int(entry.name), signum)
                    signalled.append(int(entry.name))
        return signalled

    def _write_lock_free(self, until: float) -> bool:
        """Whether the SQLite write lock and its turnstile can be taken before ``until``
        (the listeners, still running, let go of them within moments); always on PostgreSQL."""
        if self.database_url:
            return True
        database = self.data_dir / "gateway.db"
        while time.monotonic() < until:
            if all(_free(database.with_name(database.name + tail)) for tail in _LOCK_FILES):
                return True
            time.sleep(0.02)
        return False

    def kill(self) -> None:
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()


_LOCK_FILES = ("-writer.turnstile", "-writer.lock")


def _free(path: Path) -> bool:
    """Whether nobody holds ``path``'s flock now (taken and let go at once)."""
    if not path.exists():
        return True
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


@pytest.fixture
def gateway(tmp_path: Path, database_url: str) -> Iterator[Gateway]:
    running = Gateway(tmp_path / "var", database_url)
    running.start()
    yield running
    running.stop()


def thread(gateway: Gateway, filed: dict[str, Any]) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {filed['access_token']}"}
    got = httpx.get(f"{gateway.base}/v1/requests/{filed['reference']}", headers=headers)
    assert got.status_code == 200, got.text
    result: dict[str, Any] = got.json()
    return result


def human_kinds(gateway: Gateway, filed: dict[str, Any]) -> list[str]:
    return [t["kind"] for t in thread(gateway, filed)["turns"] if t["author"] == "human"]


def send(gateway: Gateway, message: EmailMessage) -> None:
    with smtplib.SMTP("127.0.0.1", gateway.smtp_port, timeout=10) as smtp:
        # The 250: the gateway has the reply, durably, inside the window.
        assert smtp.sendmail(LAWYER, [str(message["To"])], message.as_bytes()) == {}


def pushes(gateway: Gateway) -> int:
    """How many pushes to the agent were queued (each one is on the record at once)."""
    url = gateway.database_url or f"sqlite:///{gateway.data_dir / 'gateway.db'}"
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            query = select(func.count()).where(OutboxItem.purpose == "push")
            return int(conn.execute(query).scalar_one())
    finally:
        engine.dispose()


@pytest.mark.parametrize("kill", ["at_once", "after_the_window"])
def test_a_reject_acknowledged_in_the_window_wins_when_read_after_it(
    gateway: Gateway, kill: str
) -> None:
    filed = httpx.post(
        gateway.base + "/v1/requests",
        json={
            "category": "human_confirmation",
            "request": "May we sign the ACME NDA today?",
            "proposed_action": "Sign and return the ACME NDA.",
            "reply_to": "http://127.0.0.1:9/hook",
        },
    ).json()
    maildir = gateway.data_dir / "maildir"
    raw = wait_until("the email", lambda: read_maildir(maildir), time.monotonic() + 30)[0][1]
    email = message_from_bytes(raw, policy=default_policy)
    assert isinstance(email, EmailMessage)

    send(gateway, reply_to(email, "Approved."))
    wait_until(
        "the held reading",
        lambda: "pending_decision" in human_kinds(gateway, filed),
        time.monotonic() + 30,
    )
    held = next(t for t in thread(gateway, filed)["turns"] if t["kind"] == "pending_decision")
    window_end = datetime.fromisoformat(held["pending"]["takes_effect_at"])

    gateway.stall_worker()
    send(gateway, tapped(email, "REJECT", "<reject.r1@lawfirm.example>"))
    assert datetime.now(UTC) < window_end, "the REJECT must be acknowledged inside the window"
    if kill == "at_once":
        gateway.kill()
    # Past the window's end, with the REJECT still unread.
    while datetime.now(UTC) <= window_end:
        time.sleep(0.2)
    time.sleep(1.5)
    if kill == "after_the_window":
        gateway.kill()
    gateway.start()

    wait_until(
        "the rejection",
        lambda: "rejection" in human_kinds(gateway, filed),
        time.monotonic() + 60,
    )
    # Time for the job that ends windows to run several times over.
    time.sleep(3)
    view = thread(gateway, filed)
    kinds = [t["kind"] for t in view["turns"] if t["author"] == "human"]
    assert "approval" not in kinds, kinds
    assert kinds.count("rejection") == 1
    assert "reading_replaced" in [t["kind"] for t in view["turns"]]
    assert view["status"] == "answered"
    # The agent hears of the rejection only: never of the approval the lawyer took back.
    assert pushes(gateway) == 1
