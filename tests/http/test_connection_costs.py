"""What a kept-alive connection costs per request: one write per answer (nothing lost or
reordered), and no timer set and cancelled for every request read."""

from __future__ import annotations

import asyncio
from asyncio import selector_events
from typing import Any

import pytest

from gateway.http.connections import UNCORKED_BYTES, CorkedWrites, _Guarded
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
