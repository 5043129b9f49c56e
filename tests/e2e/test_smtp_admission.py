"""The SMTP listener's connection slots, over real sockets (TLS included).

Every way a session ends gives its slot back, and the slots are shared so that an
attacker holding connections from several addresses cannot keep a real MTA, or the
trusted relay in front, out.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import struct
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gateway.throttle import ConnectionGuard
from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.e2e.deploykit import write_certificate
from tests.e2e.test_hostile_smtp import (
    address_of,
    filed_with_email,
    greeting,
    whole_reply,
)
from tests.mailkit import reply_to

BOUNCE = "gateway@hfa.example"


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "tls").mkdir()
    return write_certificate(tmp_path / "tls")


@pytest.fixture
async def tls_gateway(
    tmp_path: Path, sink: SmtpSink, certificate: tuple[Path, Path]
) -> AsyncIterator[Running]:
    cert, key = certificate
    config = make_config(
        tmp_path / "var",
        smtp_tls_cert_file=str(cert),
        smtp_tls_key_file=str(key),
        smtp_timeout_seconds="5",
        smtp_max_connections="40",
        smtp_max_connections_per_client="4",
    )
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


def _connect(port: int, source: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def _command(sock: socket.socket | ssl.SSLSocket, line: bytes) -> bytes:
    sock.sendall(line)
    return whole_reply(sock)


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset instead of a FIN."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _starttls(sock: socket.socket) -> None:
    assert greeting(sock).startswith(b"220")
    _command(sock, b"EHLO client.test\r\n")
    assert _command(sock, b"STARTTLS\r\n").startswith(b"220")


def _client_tls() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def plain_quit(port: int, source: str) -> None:
    with _connect(port, source) as sock:
        assert greeting(sock).startswith(b"220")
        _command(sock, b"EHLO client.test\r\n")
        _command(sock, b"QUIT\r\n")


def starttls_quit(port: int, source: str) -> None:
    sock = _connect(port, source)
    _starttls(sock)
    with _client_tls().wrap_socket(sock, server_hostname="localhost") as tls:
        assert _command(tls, b"EHLO client.test\r\n").startswith(b"250")
        _command(tls, b"QUIT\r\n")


def starttls_then_reset(port: int, source: str) -> None:
    sock = _connect(port, source)
    _starttls(sock)
    tls = _client_tls().wrap_socket(sock, server_hostname="localhost")
    _command(tls, b"EHLO client.test\r\n")
    _reset(tls)


def handshake_garbage(port: int, source: str) -> None:
    """STARTTLS, then bytes that are no TLS at all: the handshake fails."""
    with _connect(port, source) as sock:
        _starttls(sock)
        sock.sendall(b"this is not a TLS client hello\r\n" * 4)
        with contextlib.suppress(OSError):
            sock.recv(100)


def handshake_abandoned(port: int, source: str) -> None:
    """STARTTLS, then a reset before any handshake byte."""
    sock = _connect(port, source)
    _starttls(sock)
    _reset(sock)


def reset_after_greeting(port: int, source: str) -> None:
    sock = _connect(port, source)
    greeting(sock)
    _reset(sock)


def reset_mid_data(port: int, source: str) -> None:
    sock = _connect(port, source)
    greeting(sock)
    for line in (b"EHLO client.test\r\n", b"MAIL FROM:<>\r\n", f"RCPT TO:<{BOUNCE}>\r\n".encode()):
        _command(sock, line)
    assert _command(sock, b"DATA\r\n").startswith(b"354")
    sock.sendall(b"Subject: cut\r\n\r\nhalf a body")
    _reset(sock)


def silent_until_timeout(port: int, source: str) -> None:
    """Greeted, then silent: the listener's timeout (5 s here) ends the session."""
    with _connect(port, source) as sock:
        greeting(sock)
        sock.settimeout(60)  # the server ends it; a busy machine may take a while
        sock.recv(1000)


def silent_in_handshake(port: int, source: str) -> None:
    """STARTTLS accepted, then no handshake: the timeout ends the session."""
    with _connect(port, source) as sock:
        _starttls(sock)
        sock.settimeout(60)
        with contextlib.suppress(OSError):
            sock.recv(1000)


SESSIONS: tuple[Callable[[int, str], None], ...] = (
    plain_quit,
    starttls_quit,
    starttls_then_reset,
    handshake_garbage,
    handshake_abandoned,
    reset_after_greeting,
    reset_mid_data,
    starttls_quit,
)
SLOW_SESSIONS = (silent_until_timeout, silent_in_handshake)


async def wait_all_released(guard: ConnectionGuard) -> None:
    deadline = time.monotonic() + 30
    while guard.open or guard.open_reserved:
        assert time.monotonic() < deadline, f"{guard.open} slots still taken"
        await asyncio.sleep(0.05)


def run_sessions(port: int, count: int) -> list[str]:
    """``count`` sessions of every kind, from 20 addresses, a few at once; what failed."""
    failures: list[str] = []

    def one(n: int) -> None:
        slow = n % 50 == 0
        session = SLOW_SESSIONS[n // 50 % 2] if slow else SESSIONS[n % len(SESSIONS)]
        # Each slow session (seconds long) from an address of its own, so no address ever
        # holds more than its cap of 4 however fast the other sessions run.
        source = n // 50 % 20 if slow else n % 20
        try:
            session(port, f"127.0.1.{source + 1}")
        except Exception as exc:
            failures.append(f"{session.__name__}: {exc!r}")

    with ThreadPoolExecutor(max_workers=12) as pool:
        list(pool.map(one, range(count)))
    return failures


async def test_every_way_a_session_ends_gives_its_slot_back(tls_gateway: Running) -> None:
    guard = tls_gateway.gateway.smtp_guard
    assert guard is not None
    loop = asyncio.get_running_loop()
    failures = await loop.run_in_executor(None, run_sessions, tls_gateway.smtp_port, 1000)
    assert failures == []
    await wait_all_released(guard)
    assert guard.held_by("127.0.1.1") == 0
    # Each address can still open its full share, over STARTTLS.
    for _ in range(4):
        await loop.run_in_executor(None, starttls_quit, tls_gateway.smtp_port, "127.0.1.1")
    filed, email = await filed_with_email(tls_gateway)

    def reply_over_tls() -> bytes:
        sock = _connect(tls_gateway.smtp_port, "127.0.1.2")
        _starttls(sock)
        with _client_tls().wrap_socket(sock, server_hostname="localhost") as tls:
            _command(tls, b"EHLO lawfirm.example\r\n")
            _command(tls, b"MAIL FROM:<counsel@lawfirm.example>\r\n")
            _command(tls, f"RCPT TO:<{address_of(email)}>\r\n".encode())
            _command(tls, b"DATA\r\n")
            body = reply_to(email, "Approved.").as_bytes().replace(b"\n", b"\r\n")
            return _command(tls, body + b"\r\n.\r\n")

    assert (await loop.run_in_executor(None, reply_over_tls)).startswith(b"250")
    await tls_gateway.wait_status(filed, lambda t: t["human_has_replied"])


# -- fair admission: per-client share, a shared cap that shrinks, the relays' reserve ----

TRUSTED_RELAY = "127.0.0.5"


@pytest.fixture
async def fair_gateway(tmp_path: Path, sink: SmtpSink) -> AsyncIterator[Running]:
    # The shipped caps (100 shared, 20 per client), with a trusted relay configured.
    config = make_config(tmp_path / "var", trusted_relays=TRUSTED_RELAY)
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


def open_many(port: int, source: str, count: int) -> tuple[list[socket.socket], int]:
    """Open ``count`` connections at once from ``source``; (those greeted 220, refused)."""
    greeted, refused = [], 0
    for _ in range(count):
        sock = _connect(port, source)
        if greeting(sock).startswith(b"220"):
            greeted.append(sock)
        else:
            refused += 1
            sock.close()
    return greeted, refused


def close_all(socks: list[socket.socket]) -> None:
    for sock in socks:
        with contextlib.suppress(OSError):
            sock.sendall(b"QUIT\r\n")
        sock.close()


async def test_an_mta_at_postfix_default_concurrency_is_never_refused(
    fair_gateway: Running,
) -> None:
    loop = asyncio.get_running_loop()
    held, refused = await loop.run_in_executor(
        None, open_many, fair_gateway.smtp_port, "127.0.3.1", 20
    )
    try:
        assert (len(held), refused) == (20, 0)
    finally:
        close_all(held)


async def test_an_attacker_on_ten_addresses_leaves_room_for_an_mta_and_the_relay(
    fair_gateway: Running,
) -> None:
    loop, port = asyncio.get_running_loop(), fair_gateway.smtp_port
    guard = fair_gateway.gateway.smtp_guard
    assert guard is not None

    def attack() -> list[socket.socket]:
        # Each address takes every slot it is given, twice over.
        held: list[socket.socket] = []
        for _round in range(2):
            for n in range(1, 11):
                got, _refused = open_many(port, f"127.0.2.{n}", 30)
                held.extend(got)
        return held

    attacker = await loop.run_in_executor(None, attack)
    try:
        assert len(attacker) >= 60  # the attack really holds most of the shared slots
        # Another client's connections are admitted (and a reply is recorded), and the
        # trusted relay opens its whole usual concurrency from its reserve.
        mta, mta_refused = await loop.run_in_executor(None, open_many, port, "127.0.3.1", 2)
        relay, relay_refused = await loop.run_in_executor(None, open_many, port, TRUSTED_RELAY, 20)
        try:
            assert (len(mta), mta_refused) == (2, 0)
            assert (len(relay), relay_refused) == (20, 0)
            assert guard.open_reserved == 20
        finally:
            close_all(mta + relay)
        filed, email = await filed_with_email(fair_gateway)

        def reply(source: str) -> bytes:
            with _connect(port, source) as sock:
                assert greeting(sock).startswith(b"220")
                _command(sock, b"EHLO lawfirm.example\r\n")
                _command(sock, b"MAIL FROM:<counsel@lawfirm.example>\r\n")
                _command(sock, f"RCPT TO:<{address_of(email)}>\r\n".encode())
                _command(sock, b"DATA\r\n")
                body = reply_to(email, "Approved.").as_bytes().replace(b"\n", b"\r\n")
                return _command(sock, body + b"\r\n.\r\n")

        assert (await loop.run_in_executor(None, reply, "127.0.3.2")).startswith(b"250")
        await fair_gateway.wait_status(filed, lambda t: t["human_has_replied"])
    finally:
        close_all(attacker)
