"""What a kept-alive connection costs per request: one write per answer (nothing lost or
reordered), and no timer set and cancelled for every request read."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from asyncio import selector_events
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

from gateway.http.connections import (
    ARRIVALS,
    UNCORKED_BYTES,
    CorkedWrites,
    _Guarded,
    guarded_protocol,
)
from gateway.throttle import ConnectionGuard
from tests.conftest import Running


class _Transport:
    def __init__(self) -> None:
        self.calls: list[Any] = []

    def write(self, data: bytes) -> None:
        self.calls.append(("write", data))

    def close(self) -> None:
        self.calls.append("close")

    def abort(self) -> None:
        self.calls.append("abort")

    def write_eof(self) -> None:
        self.calls.append("eof")

    def get_write_buffer_size(self) -> int:
        return 7

    def is_closing(self) -> bool:
        return False


async def test_the_writes_of_one_turn_go_out_together() -> None:
    transport = _Transport()
    corked = CorkedWrites(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
    corked.write(b"HTTP/1.1 200 OK\r\n\r\n")
    corked.write(b'{"a":1}')
    assert transport.calls == [] and corked.get_write_buffer_size() == 7 + 26
    await asyncio.sleep(0)
    assert transport.calls == [("write", b'HTTP/1.1 200 OK\r\n\r\n{"a":1}')]
    # A stream written over several turns still leaves as it is written.
    corked.write(b"data: 1\n\n")
    await asyncio.sleep(0)
    corked.write(b"data: 2\n\n")
    await asyncio.sleep(0)
    assert transport.calls[1:] == [("write", b"data: 1\n\n"), ("write", b"data: 2\n\n")]
    assert not corked.is_closing()


async def test_a_large_body_is_not_copied_to_share_a_write() -> None:
    transport = _Transport()
    corked = CorkedWrites(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
    body = b"x" * UNCORKED_BYTES
    corked.write(b"HTTP/1.1 200 OK\r\n\r\n")
    corked.write(body)
    assert transport.calls == [("write", b"HTTP/1.1 200 OK\r\n\r\n"), ("write", body)]
    assert transport.calls[1][1] is body


async def test_closing_sends_what_was_written_first() -> None:
    transport = _Transport()
    corked = CorkedWrites(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
    corked.write(b"last words")
    corked.close()
    assert transport.calls == [("write", b"last words"), "close"]
    await asyncio.sleep(0)  # the scheduled flush finds nothing left
    assert transport.calls == [("write", b"last words"), "close"]
    eof = _Transport()
    corked = CorkedWrites(eof, asyncio.get_running_loop())  # type: ignore[arg-type]
    corked.writelines([b"a", b"b"])
    corked.write_eof()
    assert eof.calls == [("write", b"ab"), "eof"]


async def test_abort_drops_what_was_not_sent() -> None:
    transport = _Transport()
    corked = CorkedWrites(transport, asyncio.get_running_loop())  # type: ignore[arg-type]
    corked.write(b"never")
    corked.abort()
    await asyncio.sleep(0)
    assert transport.calls == ["abort"]


async def test_a_status_answer_is_one_write_on_the_socket(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    filed = await running.file()
    headers = {"Authorization": f"Bearer {filed['access_token']}"}
    path = f"/v1/requests/{filed['reference']}"
    await running.http.get(path, headers=headers)  # the connection is open and kept
    port = running.gateway.http_port
    sent: list[bytes] = []
    socket_transport: Any = selector_events._SelectorSocketTransport  # type: ignore[attr-defined]
    original = socket_transport.write

    def spy(self: Any, data: Any) -> None:
        if self.get_extra_info("sockname")[1] == port:
            sent.append(bytes(data))
        original(self, data)

    monkeypatch.setattr(socket_transport, "write", spy)
    answer = await running.http.get(path, headers=headers)
    assert answer.status_code == 200
    assert (
        len(sent) == 1 and sent[0].startswith(b"HTTP/1.1 200") and sent[0].endswith(answer.content)
    )


async def test_requests_on_a_kept_connection_set_no_timer_each(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    await running.http.get("/healthz")  # the connection is open and kept
    timers: list[str] = []
    loop = asyncio.get_running_loop()
    original = type(loop).call_at

    def spy(self: Any, when: float, callback: Any, *args: Any, **kwargs: Any) -> Any:
        # uvicorn's own keep-alive timer is left out: it is set per request anyhow.
        if isinstance(getattr(callback, "__self__", None), _Guarded) and callback.__name__ in (
            "_check",
            "_expired",
        ):
            timers.append(callback.__name__)
        return original(self, when, callback, *args, **kwargs)

    monkeypatch.setattr(type(loop), "call_at", spy)
    for _ in range(20):
        assert (await running.http.get("/healthz")).status_code == 200
    # The request deadline's one timer is moved when it fires, not set for each request.
    assert len(timers) <= 1


def _kept_reads(running: Running) -> None:
    if running.services.db.engine.dialect.name != "sqlite":
        pytest.skip("answers are kept on a SQLite file only")


async def test_a_commit_elsewhere_is_seen_by_the_next_request_on_a_kept_connection(
    running: Running,
) -> None:
    _kept_reads(running)
    filed = await running.file()
    assert (await running.status(filed))["status"] == "recorded"
    # Another process (hfa serve's worker) commits between two reads of one connection.
    other = sqlite3.connect(running.services.config.data_dir / "gateway.db")
    with other:
        other.execute("UPDATE requests SET status = 'reviewed'")
    other.close()
    assert (await running.status(filed))["status"] == "reviewed"


class _Socket(_Transport):
    """Enough of a socket's transport for uvicorn's protocol."""

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 8000) if name in ("peername", "sockname") else default

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _idle_app(scope: Any, receive: Any, send: Any) -> None:
    await asyncio.Event().wait()


async def test_only_a_request_served_at_once_is_marked_as_counted() -> None:
    protocol_class: Any = guarded_protocol(ConnectionGuard(10, 10), 5.0)
    config = Config(app=_idle_app, http=protocol_class, log_level="warning")
    config.load()
    protocol = protocol_class(config=config, server_state=ServerState(), app_state={})
    protocol.connection_made(_Socket())
    try:
        protocol.data_received(b"GET /v1/requests/HFA-00001 HTTP/1.1\r\nHost: gw\r\n\r\n")
        assert protocol.cycle.scope[ARRIVALS] is protocol.arrivals
        assert protocol.arrivals.count == 1
        # Two more on the same connection, before the first is answered: the last waits
        # its turn (pipelining), and may be served after a commit by the one before it.
        pipelined = b"POST /v1/requests HTTP/1.1\r\nHost: gw\r\nContent-Length: 0\r\n\r\n"
        protocol.data_received(pipelined + b"GET /v1/requests/HFA-00001 HTTP/1.1\r\n\r\n")
        assert protocol.arrivals.count == 2
        assert ARRIVALS not in protocol.cycle.scope
    finally:
        protocol.connection_lost(None)
        for task in list(protocol.tasks):
            task.cancel()
        await asyncio.sleep(0)


async def _answers(reader: asyncio.StreamReader, count: int) -> list[tuple[int, bytes]]:
    answers = []
    for _ in range(count):
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = next(
            int(v)
            for k, _, v in (h.partition(": ") for h in lines)
            if k.lower() == "content-length"
        )
        answers.append((int(lines[0].split(" ")[1]), await reader.readexactly(length)))
    return answers


async def test_a_pipelined_read_sees_the_commit_of_the_request_before_it(running: Running) -> None:
    _kept_reads(running)
    filed = await running.file()
    auth = f"Authorization: Bearer {filed['access_token']}\r\n"
    path = f"/v1/requests/{filed['reference']}"
    read = f"GET {path} HTTP/1.1\r\nHost: gw\r\n{auth}\r\n".encode()
    body = json.dumps({"message": "One more point."}).encode()
    add = (
        f"POST {path}/messages HTTP/1.1\r\nHost: gw\r\n{auth}"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    reader, writer = await asyncio.open_connection("127.0.0.1", running.gateway.http_port)
    try:
        # In one write: the second read is served after the message is committed, and
        # must show it, whatever the first read found.
        writer.write(read + add + read)
        await writer.drain()
        (s1, before), (s2, _added), (s3, after) = await asyncio.wait_for(_answers(reader, 3), 10)
    finally:
        writer.close()
    assert (s1, s2, s3) == (200, 201, 200)
    assert len(json.loads(before)["turns"]) == 1
    assert [t["body"] for t in json.loads(after)["turns"]][-1] == "One more point."
