"""The HTTP API as operators run it, over real sockets: an access line per request, the real
client behind a trusted proxy (and only there), and /metrics kept from the agents' port."""

from __future__ import annotations

import json
import logging
import re

from gateway.cli.common import JsonFormatter, TextFormatter
from gateway.settings.config import Config
from tests.conftest import SmtpSink, start_running, stop_running

RFC3339_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def test_log_lines_carry_rfc3339_moments_with_milliseconds_and_zone() -> None:
    record = logging.LogRecord("gateway.access", logging.INFO, "", 0, "GET / 200", (), None)
    record.created = 1796638474.5123
    entry = json.loads(JsonFormatter().format(record))
    assert entry["at"] == "2026-12-07T10:14:34.512Z"
    assert RFC3339_MS.match(entry["at"]) and isinstance(entry["pid"], int)
    text = TextFormatter("%(asctime)s %(message)s").format(record)
    assert text == "2026-12-07T10:14:34.512Z GET / 200"


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
