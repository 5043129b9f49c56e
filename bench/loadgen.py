"""Built-in load generators on asyncio: the fallback when wrk or smtp-source is absent.

Both are lean on purpose (raw streams, pre-built bytes), so that on the
harness's own core they can drive a one-core server to its limit. Every
loop stops at a count and at a deadline, whichever comes first.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass
class Load:
    """What one load run measured."""

    done: int
    seconds: float
    errors: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    p50_ms: float | None = None
    p99_ms: float | None = None
    tool: str = "asyncio"

    @property
    def rate(self) -> float:
        return self.done / self.seconds if self.seconds > 0 else 0.0

    def percentiles(self) -> tuple[float | None, float | None]:
        if self.p50_ms is not None or not self.latencies_ms:
            return self.p50_ms, self.p99_ms
        ordered = sorted(self.latencies_ms)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        return statistics.median(ordered), p99


def http_request(
    method: str, path: str, *, body: bytes = b"", headers: dict[str, str] | None = None
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def _read_response(reader: asyncio.StreamReader) -> int:
    status, _body = await read_response(reader)
    return status


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One HTTP/1.1 response with a Content-Length: its status and body."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    body = await reader.readexactly(length) if length else b""
    return status, body


class KeepAlive:
    """One keep-alive HTTP connection for GETs, opened on first use and again after a close.

    Far cheaper per request than a full client library, so a watcher polling the
    gateway leaves the CPU to the gateway it measures.
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self._stream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def get(self, path: str, headers: dict[str, str]) -> tuple[int, bytes]:
        for attempt in (1, 2):
            if self._stream is None:
                self._stream = await asyncio.open_connection("127.0.0.1", self.port)
            reader, writer = self._stream
            try:
                writer.write(http_request("GET", path, headers=headers))
                return await read_response(reader)
            except (OSError, asyncio.IncompleteReadError):
                # The server closed an idle connection: one new one, then give up.
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._stream is not None:
            self._stream[1].close()
            self._stream = None


async def http_load(
    port: int,
    request: bytes,
    *,
    connections: int,
    seconds: float,
    max_requests: int = 10_000_000,
    expect: tuple[int, ...] = (200, 201),
) -> Load:
    """Keep-alive connections sending ``request`` back to back until time or count runs out."""
    deadline = time.perf_counter() + seconds
    latencies: list[float] = []
    errors = 0
    sent = 0

    async def connection() -> None:
        nonlocal errors, sent
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while time.perf_counter() < deadline and sent < max_requests:
                sent += 1
                started = time.perf_counter()
                writer.write(request)
                status = await _read_response(reader)
                if status in expect:
                    latencies.append((time.perf_counter() - started) * 1000)
                else:
                    errors += 1
        finally:
            writer.close()

    started = time.perf_counter()
    results = await asyncio.gather(
        *(connection() for _ in range(connections)), return_exceptions=True
    )
    errors += sum(1 for r in results if isinstance(r, BaseException))
    return Load(len(latencies), time.perf_counter() - started, errors, latencies)


class SmtpFailure(Exception):
    pass


async def _expect(reader: asyncio.StreamReader, code: bytes) -> None:
    while True:
        line = await reader.readline()
        if not line:
            raise SmtpFailure("connection closed")
        if line[3:4] != b"-":
            if not line.startswith(code):
                raise SmtpFailure(line.decode(errors="replace").strip())
            return


def dot_stuffed(raw: bytes) -> bytes:
    """The DATA payload: CRLF line ends, leading dots doubled, terminated."""
    text = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    if text.startswith(b"."):
        text = b"." + text
    text = text.replace(b"\r\n.", b"\r\n..")
    if not text.endswith(b"\r\n"):
        text += b"\r\n"
    return text + b".\r\n"


async def smtp_send(port: int, sender: str, recipient: str, payload: bytes) -> float:
    """One message over a new connection (as mail servers deliver); seconds until 250."""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        await _expect(reader, b"220")
        writer.write(b"EHLO loadgen.bench\r\n")
        await _expect(reader, b"250")
        writer.write(f"MAIL FROM:<{sender}>\r\n".encode())
        await _expect(reader, b"250")
        writer.write(f"RCPT TO:<{recipient}>\r\n".encode())
        await _expect(reader, b"250")
        writer.write(b"DATA\r\n")
        await _expect(reader, b"354")
        writer.write(payload)
        await _expect(reader, b"250")
        elapsed = time.perf_counter() - started
        writer.write(b"QUIT\r\n")
        await writer.drain()
        return elapsed
    finally:
        writer.close()


@dataclass(frozen=True)
class Mail:
    sender: str
    recipient: str
    payload: bytes  # already dot-stuffed and terminated


async def smtp_load(
    port: int,
    messages: Sequence[Mail],
    *,
    connections: int,
    seconds: float,
    on_accepted: Callable[[int, float], None] | None = None,
    interval: float = 0.0,
) -> Load:
    """Send each message once, ``connections`` at a time; optionally paced to one per ``interval``."""
    deadline = time.perf_counter() + seconds
    latencies: list[float] = []
    errors = 0
    cursor = 0
    started = time.perf_counter()

    async def worker() -> None:
        nonlocal cursor, errors
        while cursor < len(messages) and time.perf_counter() < deadline:
            index = cursor
            cursor += 1
            if interval:
                due = started + index * interval
                delay = due - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
            mail = messages[index]
            try:
                elapsed = await smtp_send(port, mail.sender, mail.recipient, mail.payload)
            except (OSError, SmtpFailure, asyncio.IncompleteReadError):
                errors += 1
                continue
            latencies.append(elapsed * 1000)
            if on_accepted is not None:
                on_accepted(index, time.perf_counter())

    await asyncio.gather(*(worker() for _ in range(connections)))
    return Load(len(latencies), time.perf_counter() - started, errors, latencies)
