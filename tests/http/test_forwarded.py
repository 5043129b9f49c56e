"""Behind a trusted proxy, the client is the one X-Forwarded-For names; elsewhere the header is ignored."""

from __future__ import annotations

import asyncio
import logging
import socket

import httpx
import pytest

from gateway.http.forwarded import forwarded_client
from gateway.settings.config import Config
from tests.conftest import SmtpSink, start_running, stop_running
from tests.http.httpkit import access_lines


async def file_as(base: str, forwarded_for: str) -> int:
    async with httpx.AsyncClient(base_url=base) as http:
        response = await http.post(
            "/v1/requests",
            json={"category": "legal_review", "request": "Please review clause 7."},
            headers={"X-Forwarded-For": forwarded_for},
        )
        return response.status_code


def test_the_client_is_the_last_address_a_trusted_proxy_did_not_write() -> None:
    trusted = {"127.0.0.1", "10.0.0.2"}.__contains__
    assert forwarded_client([(b"x-forwarded-for", b"203.0.113.7")], trusted) == "203.0.113.7"
    # The client wrote the first address itself: only the one the proxy added counts.
    spoofed = [(b"x-forwarded-for", b"198.51.100.1, 203.0.113.7, 10.0.0.2")]
    assert forwarded_client(spoofed, trusted) == "203.0.113.7"
    assert forwarded_client([(b"x-forwarded-for", b"nonsense")], trusted) == ""
    assert forwarded_client([], trusted) == ""


async def test_behind_a_trusted_proxy_each_agent_has_its_own_rate_limit(
    config: Config, sink: SmtpSink, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="gateway.access")
    running = await start_running(
        config.with_overrides(trusted_proxies="127.0.0.1", rate_limit_per_minute="2"), sink
    )
    base = f"http://127.0.0.1:{running.gateway.http_port}"
    try:
        agent_a = [await file_as(base, "203.0.113.7") for _ in range(3)]
        # Another agent behind the same proxy is not held back by the first one's limit.
        agent_b = [await file_as(base, "203.0.113.8") for _ in range(2)]
    finally:
        await stop_running(running)
    assert agent_a == [201, 201, 429]
    assert agent_b == [201, 201]
    clients = {r.fields["client"] for r in access_lines(caplog)}  # type: ignore[attr-defined]
    assert clients == {"203.0.113.7", "203.0.113.8"}


async def test_without_trusted_proxies_x_forwarded_for_is_ignored(
    config: Config, sink: SmtpSink
) -> None:
    running = await start_running(config.with_overrides(rate_limit_per_minute="2"), sink)
    base = f"http://127.0.0.1:{running.gateway.http_port}"
    try:
        # A client cannot escape its limit by naming another address.
        codes = [await file_as(base, f"203.0.113.{n}") for n in range(3)]
    finally:
        await stop_running(running)
    assert codes == [201, 201, 429]


async def test_a_trusted_proxy_is_not_capped_as_one_client(config: Config, sink: SmtpSink) -> None:
    running = await start_running(
        config.with_overrides(trusted_proxies="127.0.0.1", http_max_connections_per_client="2"),
        sink,
    )
    port = running.gateway.http_port
    assert port is not None
    socks: list[socket.socket] = []
    try:
        for _ in range(4):
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        await asyncio.sleep(0.2)
        # The fourth connection of one proxy is served, where one client gets 503.
        last = socks[-1]
        last.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = await asyncio.to_thread(last.recv, 4096)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:80]
    finally:
        for sock in socks:
            sock.close()
        await stop_running(running)
