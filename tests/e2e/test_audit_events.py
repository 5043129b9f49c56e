"""A full scenario: every event type lands in the audit log, and no secret anywhere in it or the logs."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import aiosmtplib
import pytest
from sqlalchemy import text

from gateway.cli import main
from gateway.cli.common import JsonFormatter
from gateway.services import Services
from gateway.settings.config import Config
from tests import auditkit
from tests.conftest import LAWYER, REPLY_DOMAIN, Running, SmtpSink, start_running, stop_running
from tests.mailkit import reply_to, send

SECRET_KEY = "scenario-secret-key-0123456789abcdef"

EXPECTED_EVENTS = {
    "gateway.started",
    "gateway.stopped",
    "api_key.created",
    "request.recorded",
    "request.follow_up_recorded",
    "request.withdrawn",
    "request.status_changed",
    "request.closed",
    "request.token_rejected",
    "email.queued",
    "email.sent",
    "email.failed",
    "email.bounced",
    "outbox.retry_requested",
    "inbound.received",
    "inbound.processed",
    "inbound.token_rejected",
    "reply.recorded",
}


class Collect(logging.Handler):
    """Every log line of the run, formatted as `hfa --log-format json` writes it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(JsonFormatter())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def log_lines() -> Iterator[Collect]:
    handler = Collect()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield handler
    root.removeHandler(handler)
    root.setLevel(old_level)


def use_cli(monkeypatch: pytest.MonkeyPatch, services: Services) -> None:
    for key in [k for k in os.environ if k.startswith("HFA_") and not k.startswith("HFA_TEST_")]:
        monkeypatch.delenv(key)
    for name, value in services.config.raw.items():
        monkeypatch.setenv(f"HFA_{name.upper()}", value)


def cli(*argv: str) -> int:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        return main(list(argv))
    finally:
        root.handlers[:] = handlers
        # setLevel, not the attribute: it also forgets each logger's cached answer to
        # isEnabledFor, which the command's own level would otherwise leave behind.
        root.setLevel(level)


def bounce_for(message_id: str, subject: str) -> bytes:
    return (
        "From: MAILER-DAEMON@mx.lawfirm.example\r\n"
        f"To: gateway@{REPLY_DOMAIN}\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\n"
        f"Date: {format_datetime(datetime.now(UTC))}\r\n"
        "Message-ID: <dsn-9@mx.lawfirm.example>\r\n"
        "Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n'
        "--B\r\nContent-Type: text/plain\r\n\r\nThe mailbox is full.\r\n"
        "--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx\r\n\r\n"
        f"Final-Recipient: rfc822; {LAWYER}\r\nAction: failed\r\nStatus: 5.2.2\r\n"
        "--B\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"Message-ID: {message_id}\r\nSubject: {subject}\r\n--B--\r\n"
    ).encode()


async def run_scenario(
    running: Running, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> list[str]:
    """Drive every kind of event; returns the secrets handed out on the way."""
    http, sink = running.http, running.sink
    secrets: list[str] = [SECRET_KEY]
    use_cli(monkeypatch, running.services)
    capsys.readouterr()
    assert cli("keys", "create", "procurement-bot") == 0
    api_key = capsys.readouterr().out.split()[0]
    secrets.append(api_key)
    headers = {"X-API-Key": api_key}

    async def file(**fields: Any) -> dict[str, Any]:
        body = {"category": "legal_review", "request": "Please review clause 7."} | fields
        response = await http.post("/v1/requests", json=body, headers=headers)
        assert response.status_code == 201, response.text
        filed: dict[str, Any] = response.json()
        secrets.extend([filed["access_token"], filed["thread_url"].rsplit("/", 1)[1]])
        return filed

    first = await file(urgency="blocking", reply_to="agent-inbox@agents.example")
    [email] = await sink.wait_for(1)
    token = re.search(r"reply\+([^@]+)@", str(email["Reply-To"]))
    assert token is not None
    secrets.append(token.group(1))
    bearer = {"Authorization": f"Bearer {first['access_token']}"}
    added = await http.post(
        f"/v1/requests/{first['reference']}/messages", json={"message": "Any news?"}, headers=bearer
    )
    assert added.status_code == 201
    await send(reply_to(email, "APPROVE. Fine as drafted."), running.smtp_port)
    await running.wait_status(first, lambda t: t["status"] == "answered")

    second = await file()
    withdrawn = await http.post(
        f"/v1/requests/{second['reference']}/messages",
        json={"message": "Not needed any more.", "withdraw": True},
        headers={"Authorization": f"Bearer {second['access_token']}"},
    )
    assert withdrawn.status_code == 201

    # Wrong tokens: over HTTP (404) and over SMTP (550), each audited once.
    for _ in range(3):
        wrong = {"Authorization": "Bearer hfat_" + "x" * 43}
        assert (
            await http.get(f"/v1/requests/{first['reference']}", headers=wrong)
        ).status_code == 404
    forged = f"reply+{'a' * 20}@{REPLY_DOMAIN}"
    async with aiosmtplib.SMTP(hostname="127.0.0.1", port=running.smtp_port) as client:
        with pytest.raises(aiosmtplib.SMTPRecipientsRefused):
            await client.sendmail("x@example.org", [forged], b"Subject: hi\r\n\r\nhi\r\n")

    # A permanent refusal, then ops retry it; a bounce for the first email.
    sink.answer = "550 5.1.1 mailbox unavailable"
    third = await file()
    await running.wait_status(third, lambda t: t["turns"][-1]["kind"] == "email_failed")
    sink.answer = None
    assert cli("outbox", "retry", "--all-failed", "--by", "carol") == 0
    running.services.outbox_ready.set()
    async with aiosmtplib.SMTP(hostname="127.0.0.1", port=running.smtp_port) as client:
        await client.sendmail(
            "", [f"gateway@{REPLY_DOMAIN}"], bounce_for(str(email["Message-ID"]), "x")
        )
    await running.wait_status(first, lambda t: t["turns"][-1]["kind"] == "email_bounced")
    assert cli("requests", "close", third["reference"], "--reason", "test over") == 0
    return secrets


def audit_dump(services: Services) -> str:
    with services.db.engine.connect() as conn:
        rows = conn.execute(text("SELECT * FROM audit ORDER BY seq")).mappings()
        return "\n".join(json.dumps(dict(r), default=str) for r in rows)


@pytest.fixture
def scenario_config(config: Config) -> Config:
    return config.with_overrides(secret_keys=SECRET_KEY)


async def test_every_event_is_audited_and_no_secret_is_in_the_log_or_the_logs(
    scenario_config: Config,
    sink: SmtpSink,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    log_lines: Collect,
) -> None:
    running = await start_running(scenario_config, sink)
    try:
        secrets = await run_scenario(running, monkeypatch, capsys)
        await asyncio.sleep(0.2)
    finally:
        await stop_running(running)
    services = running.services
    data_dir: Path = services.config.data_dir
    webhook_secret = data_dir / "webhook_secret"
    if webhook_secret.exists():
        secrets.extend(webhook_secret.read_text().split())

    from gateway.services import build_services

    reopened = build_services(services.config, migrate=False)
    try:
        dump = audit_dump(reopened)
        # Every committed entry integrated, so its line is in audit.jsonl too.
        mirror = auditkit.mirror_text(reopened)
    finally:
        reopened.close()
    events = {json.loads(line)["event"] for line in dump.splitlines()}
    assert events >= EXPECTED_EVENTS, EXPECTED_EVENTS - events

    recorded = next(json.loads(x) for x in dump.splitlines() if '"request.recorded"' in x)
    assert recorded["actor"] == "agent:procurement-bot"
    rejected = [json.loads(x) for x in dump.splitlines() if '"request.token_rejected"' in x]
    assert len(rejected) == 1  # three failures, throttled to one entry
    failed = next(json.loads(x) for x in dump.splitlines() if '"email.failed"' in x)
    details = failed["details"]
    details = json.loads(details) if isinstance(details, str) else details
    assert "550 5.1.1 mailbox unavailable" in details["error"]  # the relay's own answer

    logs = "\n".join(log_lines.lines)
    for secret in secrets:
        assert len(secret) >= 16
        for name, haystack in (("audit table", dump), ("audit.jsonl", mirror), ("logs", logs)):
            assert secret not in haystack, f"a secret ({secret[:6]}...) is in the {name}"

    # One structured log line per audit event.
    logged = [json.loads(x) for x in log_lines.lines if '"logger": "gateway.audit"' in x]
    from_cli = {"api_key.created", "outbox.retry_requested", "request.closed"}  # own handler
    assert {x["event"] for x in logged} >= EXPECTED_EVENTS - from_cli
    assert all("seq" in x and "actor" in x for x in logged)
