"""One access line per HTTP request, without its query or a read capability; or none, when turned off."""

from __future__ import annotations

import logging
import re

import pytest

from gateway.settings.config import Config
from tests.conftest import SmtpSink, start_running, stop_running
from tests.http.httpkit import access_lines


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
