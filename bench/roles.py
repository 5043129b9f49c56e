"""The pieces of a scale-out run: the relay sink, the role processes, agents and lawyers.

Used by ``bench/pg_load.py`` and by the end-to-end tests that run the roles as
separate processes. Everything binds to 127.0.0.1; each process is stopped by
its PID.
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import os
import random
import shutil
import signal
import smtplib
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr
from pathlib import Path
from typing import Any

import httpx
from aiosmtpd.controller import Controller

LAWYER = "counsel@lawfirm.test"
# The gateway of this checkout, whatever ``hfa`` happens to be installed.
ROOT = Path(__file__).resolve().parents[1]
HFA = [sys.executable, "-m", "gateway"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def rebindable_port() -> int:
    """A free loopback port below the kernel's range for outgoing connections, for a
    server that is stopped and started again on it.

    A port from that range (what ``free_port`` gives) can be taken while the server is
    down, as the local end of any client's connection (tests running beside it
    included), and the server then fails to start with "address already in use".
    """
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    candidates = list(range(max(1024, low - 12000), low))
    random.shuffle(candidates)
    for port in candidates[:500]:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    return free_port()


class _HeldPortController(Controller):
    """aiosmtpd's controller on a port bound from the start, listening once started.

    Until ``start`` a connection to the port is refused, as by a relay that is down, and
    no other socket can take the port meanwhile: with a port only picked as free, another
    test's server could bind it first and receive this relay's mail (or this relay theirs).
    """

    def __init__(self, handler: Any, port: int, sock: socket.socket) -> None:
        super().__init__(handler, hostname="127.0.0.1", port=port)
        self._held = sock

    def _create_server(self) -> Any:
        if self._held.fileno() == -1:
            # Stopped, then started again: the port is bound anew.
            self._held = _bound("127.0.0.1", self.port)
        return self.loop.create_server(self._factory_invoker, sock=self._held)


def _bound(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    return sock


class Sink:
    """The relay: keeps every message it accepted, after a delay per DATA."""

    def __init__(self, delay: float) -> None:
        held = _bound("127.0.0.1", 0)
        self.port = held.getsockname()[1]
        self.lock = threading.Lock()
        self.messages: list[EmailMessage] = []
        sink = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                await asyncio.sleep(delay)
                msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
                assert isinstance(msg, EmailMessage)
                with sink.lock:
                    sink.messages.append(msg)
                return "250 OK"

        self.controller = _HeldPortController(Handler(), self.port, held)

    def request_emails(self) -> dict[str, EmailMessage]:
        """The first request email of each reference, by reference."""
        out: dict[str, EmailMessage] = {}
        with self.lock:
            for msg in self.messages:
                ref = str(msg.get("X-HFA-Reference", ""))
                subject = str(msg.get("Subject", ""))
                first = not subject.lower().startswith("re:")
                if ref and ref not in out and first and "Reply-To" in msg:
                    out[ref] = msg
        return out

    def duplicated_message_ids(self) -> int:
        with self.lock:
            ids = [str(m.get("Message-ID", "")) for m in self.messages]
        return len(ids) - len(set(ids))


@dataclass
class Roles:
    """The gateway's processes; each is stopped by its PID."""

    env: dict[str, str]
    logs: Path
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    # The checkout whose gateway runs: this one, or another for a before/after.
    code: Path = ROOT

    def start(self, name: str, *args: str, extra: dict[str, str] | None = None) -> None:
        log = (self.logs / f"{name}.log").open("wb")
        env = {**self.env, **(extra or {}), "PYTHONPATH": str(self.code)}
        self.procs[name] = subprocess.Popen(  # noqa: S603 (our own executable)
            [*HFA, "--log-format", "json", *args],
            env=env,
            # From the checkout's own directory: ``python -m`` puts the working directory
            # first on the path, before PYTHONPATH.
            cwd=self.code,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def alive(self, name: str) -> bool:
        return self.procs[name].poll() is None

    def kill9(self, name: str) -> None:
        proc = self.procs[name]
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)

    def stop_all(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)

    def log_records(self) -> Iterator[str]:
        for path in sorted(self.logs.glob("*.log")):
            yield from path.read_text(errors="replace").splitlines()


def wait_until(what: str, predicate: Callable[[], Any], deadline: float) -> Any:
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.2)


def http_up(base: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(base + "/healthz", timeout=2).status_code == 200
    return False


def port_open(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
        return True
    return False


def file_requests(base: str, count: int, concurrency: int) -> list[str]:
    body = {
        "category": "legal_review",
        "request": "Is clause 7 of the supplier agreement acceptable?",
        "proposed_action": "Sign the agreement as sent.",
        "urgency": "routine",
        "agent_name": "load-bot",
    }
    with httpx.Client(base_url=base, timeout=30) as client:

        def one(_n: int) -> str:
            for _ in range(20):
                r = client.post("/v1/requests", json=body)
                if r.status_code == 201:
                    return str(r.json()["reference"])
                time.sleep(float(r.headers.get("Retry-After", "0.5")))
            raise RuntimeError(f"filing failed: {r.status_code} {r.text[:200]}")

        with ThreadPoolExecutor(concurrency) as pool:
            return list(pool.map(one, range(count)))


def make_reply(original: EmailMessage) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = LAWYER
    msg["To"] = parseaddr(str(original["Reply-To"]))[1]
    msg["Subject"] = "Re: " + str(original["Subject"])
    msg["Message-ID"] = make_msgid(domain="lawfirm.test")
    msg["In-Reply-To"] = str(original["Message-ID"])
    msg.set_content("Approved.\n\nDana")
    return msg


@dataclass
class ReplyStats:
    codes: list[int] = field(default_factory=list)
    sent_first: int = 0
    first_round_seconds: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


def send_replies(
    port: int,
    replies: list[EmailMessage],
    on_sent: Callable[[int], None],
    *,
    connections: int,
    resends: int,
    resend_after: float,
) -> ReplyStats:
    """Send every reply over ``connections`` connections at once; 4xx are resent later."""
    stats = ReplyStats()
    queue = list(reversed(replies))

    def connection_loop() -> list[EmailMessage]:
        deferred: list[EmailMessage] = []
        client: smtplib.SMTP | None = None
        while True:
            with stats.lock:
                if not queue:
                    break
                msg = queue.pop()
            try:
                if client is None:
                    client = smtplib.SMTP("127.0.0.1", port, timeout=60)
                    client.ehlo("mta.lawfirm.test")
                client.send_message(msg, from_addr=LAWYER, to_addrs=[str(msg["To"])])
                code = 250
            except smtplib.SMTPResponseException as exc:
                code = exc.smtp_code
                client = None
            except smtplib.SMTPRecipientsRefused as exc:
                code = next(iter(exc.recipients.values()))[0]
                client = None
            with stats.lock:
                stats.codes.append(code)
                stats.sent_first += 1
                done = stats.sent_first
            if 400 <= code < 500:
                deferred.append(msg)
            on_sent(done)
        if client is not None:
            with contextlib.suppress(smtplib.SMTPException, OSError):
                client.quit()
        return deferred

    started = time.monotonic()
    with ThreadPoolExecutor(connections) as pool:
        deferred = [
            m for part in pool.map(lambda _: connection_loop(), range(connections)) for m in part
        ]
    stats.first_round_seconds = time.monotonic() - started
    for _ in range(resends):
        if not deferred:
            break
        time.sleep(resend_after)
        again: list[EmailMessage] = []
        for msg in deferred:
            try:
                with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
                    client.send_message(msg, from_addr=LAWYER, to_addrs=[str(msg["To"])])
            except smtplib.SMTPResponseException:
                again.append(msg)
        deferred = again
    return stats


def tear_down(
    roles: Roles,
    sink: Sink,
    admin_url: str,
    dbname: str,
    work: Path,
    keep_logs: bool,
    result: dict[str, Any],
) -> None:
    """The end of every PostgreSQL run: processes stopped by PID, the relay sink
    stopped, the run's database dropped, its logs kept (named in ``result``) or removed."""
    import psycopg  # only the PostgreSQL benchmarks need it

    roles.stop_all()
    sink.controller.stop()
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
    if keep_logs:
        result["logs"] = str(work)
    else:
        shutil.rmtree(work, ignore_errors=True)
