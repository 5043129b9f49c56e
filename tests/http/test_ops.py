"""/readyz and /metrics over real HTTP, and the structured log lines of `hfa --log-format json`."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path

import pytest

from gateway.cli import main
from gateway.settings.config import Config
from gateway.store.models import OutboxItem
from tests.conftest import Running, SmtpSink, _drop_postgres_database, start_running, stop_running
from tests.mailkit import reply_to, send


async def test_ready_and_metrics_count_what_happened(running: Running) -> None:
    ready = await running.http.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {
        "status": "ready",
        "checks": {
            "database": "ok",
            "smtp": "ok",
            "outbox": "ok",
            "workers": "ok",
            "smtp_listeners": "ok",
        },
        "deliveries": {"delayed": 0, "dead": 0},
    }

    filed = await running.file(urgency="blocking")
    await running.file(category="human_confirmation", request="May I?")
    # The two emails are sent side by side and may arrive in either order: answer the first's.
    await running.sink.wait_for(2)
    email = await running.sink.request_email(filed["reference"])
    await send(reply_to(email, "APPROVE."), running.smtp_port)
    await running.wait_status(filed, lambda t: t["human_has_replied"])

    response = await running.http.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    lines = set(response.text.splitlines())
    for expected in (
        'hfa_requests_filed_total{category="legal_review",urgency="blocking"} 1',
        'hfa_requests_filed_total{category="human_confirmation",urgency="routine"} 1',
        'hfa_replies_recorded_total{kind="approval"} 1',
        'hfa_inbound_messages_total{outcome="recorded"} 1',
        'hfa_requests{status="answered"} 1',
        "hfa_first_human_reply_seconds_count 1",
        'hfa_first_human_reply_seconds_bucket{le="+Inf"} 1',
        "# TYPE hfa_outbox_oldest_pending_age_seconds gauge",
        "# TYPE hfa_delivery_failures_total counter",
        "hfa_webhook_failures_total 0",
    ):
        assert expected in lines, expected
    assert any(line.startswith("hfa_audit_entries ") for line in lines)


async def test_metrics_show_delivery_failures_and_a_stuck_outbox_makes_it_unready(
    config: Config, sink: SmtpSink
) -> None:
    running = await start_running(
        config.with_overrides(ready_outbox_seconds="0.3", outbox_backoff_seconds="30"), sink
    )
    try:
        sink.answer = "451 4.3.0 try later"
        await running.file()
        # The first email must have met the 451 before the relay starts answering 550 (on a
        # loaded machine the worker may reach it later): its failure alone is counted below.
        await _until_answered(running, 1)
        await asyncio.sleep(0.5)
        ready = await running.http.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["checks"]["outbox"].startswith("stuck: the oldest pending item")
        text = (await running.http.get("/metrics")).text
        assert 'hfa_outbox_pending{channel="email"} 1' in text
        age = next(
            float(x.split()[1])
            for x in text.splitlines()
            if x.startswith("hfa_outbox_oldest_pending_age_seconds ")
        )
        assert age >= 0.3

        sink.answer = "550 5.1.1 no such user"
        await running.file()
        deadline = asyncio.get_running_loop().time() + 20
        while asyncio.get_running_loop().time() < deadline:
            text = (await running.http.get("/metrics")).text
            if 'hfa_delivery_failures_total{channel="email"} 1' in text:
                break
            await asyncio.sleep(0.05)
        assert 'hfa_delivery_failures_total{channel="email"} 1' in text
    finally:
        await stop_running(running)


async def _until_answered(running: Running, item_id: int, timeout: float = 20.0) -> None:
    """Until the relay's answer to the outbox item's first try is recorded (a bounded wait,
    not a timed assertion): ``attempts`` counts claims, ``last_error`` an answer."""
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        with running.services.db.read_only() as session:
            item = session.get(OutboxItem, item_id)
            if item is not None and item.last_error is not None:
                return
        await asyncio.sleep(0.05)
    raise AssertionError(f"outbox item {item_id} was never answered")


async def test_readiness_fails_when_the_database_is_gone(running: Running) -> None:
    assert (await running.http.get("/readyz")).status_code == 200
    services = running.services
    if services.db.is_sqlite:
        path = Path(services.db.url.removeprefix("sqlite:///"))
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    else:
        _drop_postgres_database(services.config.database_url)
    ready = await running.http.get("/readyz")
    assert ready.status_code == 503
    body = ready.json()
    assert body["status"] == "not ready"
    assert body["checks"]["database"] != "ok"
    assert body["checks"]["smtp"] == "ok"
    assert (await running.http.get("/healthz")).status_code == 200  # the process is still up


async def test_readiness_fails_when_the_smtp_listener_is_not_bound(running: Running) -> None:
    smtp = running.gateway._smtp
    assert smtp is not None
    smtp.close()
    await smtp.wait_closed()
    ready = await running.http.get("/readyz")
    assert ready.status_code == 503 and ready.json()["checks"]["smtp"] == "not bound"


async def test_json_log_format_writes_one_structured_line_per_event(
    running: Running, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    filed = await running.file()
    for key in [k for k in os.environ if k.startswith("HFA_") and not k.startswith("HFA_TEST_")]:
        monkeypatch.delenv(key)
    for name, value in running.services.config.raw.items():
        monkeypatch.setenv(f"HFA_{name.upper()}", value)
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    capsys.readouterr()
    try:
        code = main(
            ["--log-format", "json", "requests", "close", filed["reference"], "--reason", "done"]
        )
    finally:
        root.handlers[:] = handlers
        # setLevel, not the attribute: it also forgets each logger's cached answer to
        # isEnabledFor, which the command's own level would otherwise leave behind.
        root.setLevel(level)
    assert code == 0
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    events = [line["event"] for line in lines if line.get("logger") == "gateway.audit"]
    # The close, its status change, and the notice to the lawyer that no answer is needed.
    assert sorted(events) == ["email.queued", "request.closed", "request.status_changed"]
    closed = next(line for line in lines if line.get("event") == "request.closed")
    assert closed["reference"] == filed["reference"] and closed["actor"].startswith("ops:")
    assert closed["level"] == "info" and isinstance(closed["seq"], int)
    assert filed["access_token"] not in json.dumps(lines)
