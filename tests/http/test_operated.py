"""The HTTP API as operators run it, over real sockets: an access line per request, the real
client behind a trusted proxy (and only there), and /metrics kept from the agents' port."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket

import httpx
import pytest

from gateway.cli.common import JsonFormatter, TextFormatter
from gateway.http.forwarded import forwarded_client
from gateway.settings.config import Config
from tests.conftest import SmtpSink, start_running, stop_running

RFC3339_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def access_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "gateway.access"]


async def test_each_request_is_one_access_line_without_its_query_or_capability(
    config: Config, sink: SmtpSink, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="gateway.access")
    running = await start_running(config, sink)
    try:
        filed = await running.file()
        await running.http.get("/healthz?probe=secret-in-query")
        await running.http.get("/" + filed["thread_url"].split("://", 1)[1].split("/", 1)[1])
        await running.http.get("/v1/requests/HFA-99999", headers={"Authorization": "Bearer x"})
    finally:
        await stop_running(running)
    lines = access_lines(caplog)
    shown = [r.getMessage() for r in lines]
    assert [r.fields["method"] for r in lines][:2] == ["POST", "GET"]  # type: ignore[attr-defined]
    filing, health = lines[0].fields, lines[1].fields  # type: ignore[attr-defined]
    assert filing["path"] == "/v1/requests" and filing["status"] == 201
    assert filing["client"] == "127.0.0.1" and filing["duration_ms"] > 0
    assert health["path"] == "/healthz" and health["status"] == 200
    assert any(r.fields["status"] == 404 for r in lines)  # type: ignore[attr-defined]
    everything = "\n".join(shown)
    assert "secret-in-query" not in everything and "probe" not in everything
    capability = filed["thread_url"].rsplit("/", 1)[1]
    assert capability not in everything
    assert "/v1/threads/[capability] 200" in everything
    assert filed["access_token"] not in everything
    assert re.fullmatch(r"POST /v1/requests 201 \d+\.\d ms 127\.0\.0\.1", shown[0])


def test_log_lines_carry_rfc3339_moments_with_milliseconds_and_zone() -> None:
    record = logging.LogRecord("gateway.access", logging.INFO, "", 0, "GET / 200", (), None)
    record.created = 1796638474.5123
    entry = json.loads(JsonFormatter().format(record))
    assert entry["at"] == "2026-12-07T10:14:34.512Z"
    assert RFC3339_MS.match(entry["at"]) and isinstance(entry["pid"], int)
    text = TextFormatter("%(asctime)s %(message)s").format(record)
    assert text == "2026-12-07T10:14:34.512Z GET / 200"


async def test_access_log_can_be_turned_off(
    config: Config, sink: SmtpSink, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="gateway.access")
    running = await start_running(config.with_overrides(access_log="0"), sink)
    try:
        assert (await running.http.get("/healthz")).status_code == 200
    finally:
        await stop_running(running)
    assert access_lines(caplog) == []


def test_the_client_is_the_last_address_a_trusted_proxy_did_not_write() -> None:
    trusted = {"127.0.0.1", "10.0.0.2"}.__contains__
    assert forwarded_client([(b"x-forwarded-for", b"203.0.113.7")], trusted) == "203.0.113.7"
    # The client wrote the first address itself: only the one the proxy added counts.
    spoofed = [(b"x-forwarded-for", b"198.51.100.1, 203.0.113.7, 10.0.0.2")]
    assert forwarded_client(spoofed, trusted) == "203.0.113.7"
    assert forwarded_client([(b"x-forwarded-for", b"nonsense")], trusted) == ""
    assert forwarded_client([], trusted) == ""


async def file_as(base: str, forwarded_for: str) -> int:
    async with httpx.AsyncClient(base_url=base) as http:
        response = await http.post(
            "/v1/requests",
            json={"category": "legal_review", "request": "Please review clause 7."},
            headers={"X-Forwarded-For": forwarded_for},
        )
        return response.status_code


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


async def test_metrics_are_not_served_to_the_outside_by_default(
    config: Config, sink: SmtpSink
) -> None:
    running = await start_running(config.with_overrides(trusted_proxies="127.0.0.1"), sink)
    try:
        local = await running.http.get("/metrics")
        proxied = await running.http.get("/metrics", headers={"X-Forwarded-For": "203.0.113.7"})
    finally:
        await stop_running(running)
    assert local.status_code == 200 and "hfa_requests" in local.text
    assert proxied.status_code == 403
    assert "HFA_METRICS_TOKEN" in proxied.json()["error"]["message"]


async def test_with_a_metrics_token_only_its_bearer_reads_metrics(
    config: Config, sink: SmtpSink
) -> None:
    token = "metrics-token-0123456789"
    running = await start_running(config.with_overrides(metrics_token=token), sink)
    try:
        bare = await running.http.get("/metrics")
        wrong = await running.http.get(
            "/metrics", headers={b"Authorization": "Bearer nope-\xe9".encode("latin-1")}
        )
        right = await running.http.get(
            "/metrics",
            headers={"Authorization": f"Bearer {token}", "X-Forwarded-For": "203.0.113.7"},
        )
    finally:
        await stop_running(running)
    assert bare.status_code == 401 and wrong.status_code == 401
    assert bare.headers["www-authenticate"] == "Bearer"
    assert right.status_code == 200 and "hfa_requests" in right.text
