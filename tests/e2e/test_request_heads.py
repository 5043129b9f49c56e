"""A request's head past the bounds gets 431 (414 for its request line), over a real socket
to a running gateway; a request within them is served, and the gateway serves on."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from gateway.http.head_limits import MAX_FIELDS, MAX_HEAD, MAX_LINE
from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running

MIB = 1024 * 1024
REQUEST_LINE = b"GET /healthz HTTP/1.1\r\nHost: gateway.test\r\n"


@pytest.fixture
async def gateway(tmp_path: Path, sink: SmtpSink) -> AsyncIterator[Running]:
    running = await start_running(make_config(tmp_path), sink)
    yield running
    await stop_running(running)


def exchange(port: int, head: bytes) -> bytes:
    """Send ``head`` (then the empty line) in pieces, as a client would, and read the
    answer until the server closes; a server that stops reading ends the sending."""
    answer = b""
    with socket.create_connection(("127.0.0.1", port), 10) as client:
        client.settimeout(10)
        data = head + b"\r\n"
        try:
            for at in range(0, len(data), 64 * 1024):
                client.sendall(data[at : at + 64 * 1024])
        except OSError:
            pass  # the server answered and stopped reading: the answer is waiting
        try:
            while chunk := client.recv(65536):
                answer += chunk
                if b"\r\n\r\n" in answer and b"Connection: close" not in answer:
                    break
        except OSError:
            pass
    return answer


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


CASES = {
    "a 1 MB header line": REQUEST_LINE + b"X-Big: " + b"a" * MIB + b"\r\n",
    "20,000 headers": REQUEST_LINE + b"".join(b"X-H%d: v\r\n" % n for n in range(20_000)),
    "10 MB of headers": REQUEST_LINE
    + b"".join(b"X-Fill-%d: %s\r\n" % (n, b"b" * 1000) for n in range(10 * 1024)),
    "one header past the line bound": REQUEST_LINE + b"X-Long: " + b"c" * MAX_LINE + b"\r\n",
    "one field too many": REQUEST_LINE + b"".join(b"X-%d: v\r\n" % n for n in range(MAX_FIELDS)),
    "a head past the total bound": REQUEST_LINE
    + b"".join(b"X-%d: %s\r\n" % (n, b"d" * 4000) for n in range(MAX_HEAD // 4000 + 1)),
}


async def test_request_heads_past_the_bounds_get_431_and_the_rest_200(gateway: Running) -> None:
    port = gateway.gateway.http_port
    assert port is not None
    for label, head in CASES.items():
        answer = await asyncio.to_thread(exchange, port, head)
        assert status(answer) == 431, (label, answer[:200])
        assert b"header fields are too large" in answer, label
    long_url = b"GET /healthz?" + b"q" * (MAX_LINE + 1) + b" HTTP/1.1\r\nHost: x\r\n"
    assert status(await asyncio.to_thread(exchange, port, long_url)) == 414
    # Within the bounds: the most fields, each as long as it may be within the total.
    per_field = MAX_HEAD // MAX_FIELDS - 40
    within = REQUEST_LINE + b"".join(
        b"X-%d: %s\r\n" % (n, b"e" * per_field) for n in range(MAX_FIELDS - 1)
    )
    assert status(await asyncio.to_thread(exchange, port, within)) == 200
    assert status(await asyncio.to_thread(exchange, port, REQUEST_LINE)) == 200
    assert (await gateway.http.get("/healthz")).status_code == 200
