"""HTTP error handling over a real socket: a client that goes away is no server error."""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest

from tests.conftest import Running


def post_half_a_body(port: int) -> None:
    body = b'{"category": "legal_review", "request": "'
    head = (
        "POST /v1/requests HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body) + 500}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port), 5) as sock:
        sock.sendall(head + body)


async def test_a_client_gone_mid_body_is_logged_at_info_without_a_traceback(
    running: Running, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    uvicorn_log = logging.getLogger("uvicorn")
    uvicorn_log.addHandler(caplog.handler)  # uvicorn's loggers do not reach the root
    try:
        port = running.gateway.http_port
        assert port is not None
        await asyncio.get_running_loop().run_in_executor(None, post_half_a_body, port)
        for _ in range(100):
            if "disconnected during POST /v1/requests" in caplog.text:
                break
            await asyncio.sleep(0.05)
        # The gateway still answers.
        assert (await running.http.get("/healthz")).status_code == 200
    finally:
        uvicorn_log.removeHandler(caplog.handler)
    gone = [r for r in caplog.records if "disconnected during POST" in r.getMessage()]
    assert [r.levelno for r in gone] == [logging.INFO]
    assert [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR] == []
