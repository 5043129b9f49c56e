"""HTTP errors: one body shape everywhere; a client that goes away is no server error."""

from __future__ import annotations

import asyncio
import json
import logging
import socket

import pytest

from gateway.errors import StorageError
from gateway.http.connections import TOO_MANY, TOO_SLOW
from gateway.http.head_limits import FIELDS_TOO_LARGE, URI_TOO_LONG
from gateway.intake import apikeys
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


def test_refusals_written_to_the_socket_have_the_one_error_shape() -> None:
    for answer in (TOO_MANY, TOO_SLOW, FIELDS_TOO_LARGE, URI_TOO_LONG):
        head, _, body = answer.partition(b"\r\n\r\n")
        head += b"\r\n"
        assert b"\r\nConnection: close\r\n" in head
        assert f"\r\nContent-Length: {len(body)}\r\n".encode() in head
        error = json.loads(body)
        assert set(error) == {"error"} and set(error["error"]) == {"code", "message", "details"}
    assert b"\r\nRetry-After: 5\r\n\r\n" in TOO_MANY


class _DatabaseDown:
    def check(self, key: str | None) -> tuple[bool, str | None]:
        raise StorageError("database error: OperationalError")


async def test_a_key_check_without_the_database_answers_503_in_the_one_shape(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(apikeys, "key_cache", lambda services: _DatabaseDown())
    refused = await running.http.post(
        "/v1/requests", json={"category": "legal_review", "request": "Review."}
    )
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
    assert refused.json() == {
        "error": {"code": "storage_unavailable", "message": "try again shortly", "details": []}
    }
