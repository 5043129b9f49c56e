"""The ops CLI against a running gateway: see requests, fix failed mail, decide on held replies."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from gateway.services import Services
from gateway.store.models import AuditEntry
from tests.clienv import run, use_settings
from tests.conftest import (
    LAWYER,
    REPLY_DOMAIN,
    SECOND_LAWYER,
    Running,
    SmtpSink,
    make_config,
    start_running,
    stop_running,
)
from tests.mailkit import reply_to, send


@pytest.fixture
def ops(running: Running, monkeypatch: pytest.MonkeyPatch) -> Running:
    """The CLI sees the settings of the running gateway, as on the same host."""
    use_settings(monkeypatch, running.services.config.raw)
    monkeypatch.setenv("USER", "ops-on-call")
    return running


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def audit_events(services: Services, event: str) -> list[AuditEntry]:
    with services.db.read_only() as session:
        return list(session.scalars(select(AuditEntry).where(AuditEntry.event == event)))


async def file_and_mail(running: Running, **fields: Any) -> tuple[dict[str, Any], EmailMessage]:
    before = len(running.sink.received)
    filed = await running.file(**fields)
    return filed, (await running.sink.wait_for(before + 1))[before]


async def test_requests_list_show_and_close(
    ops: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    first, email = await file_and_mail(ops, urgency="blocking", agent_name="contracts-bot")
    second = await ops.file(category="human_confirmation", request="May I ship today?")
    late = await ops.file(request="Was due long ago.", deadline="2020-01-01")
    await send(reply_to(email, "Clause 7 is fine."), ops.smtp_port)
    await ops.wait_status(first, lambda t: t["status"] == "answered")

    code, out, _ = run(capsys, "requests", "list")
    assert code == 0
    for filed in (first, second, late):
        assert filed["reference"] in out
    assert "contracts-bot" in out and "answered" in out and "(overdue)" in out

    listed = run_json(capsys, "requests", "list", "--status", "recorded")
    assert [r["reference"] for r in listed] == [second["reference"], late["reference"]]
    listed = run_json(capsys, "requests", "list", "--category", "human_confirmation")
    assert [r["reference"] for r in listed] == [second["reference"]]
    listed = run_json(capsys, "requests", "list", "--overdue")
    assert [r["reference"] for r in listed] == [late["reference"]]

    code, out, _ = run(capsys, "requests", "show", first["reference"].lower())
    assert code == 0
    assert f"{first['reference']}  ANSWERED" in out
    assert "Please review clause 7." in out and "Clause 7 is fine." in out
    assert f"human/reply from {LAWYER}" in out
    assert re.search(r"\brequest\s+" + re.escape(LAWYER) + r"\s+sent\b", out), out
    assert first["access_token"] not in out
    shown = run_json(capsys, "requests", "show", first["reference"])
    assert [e["purpose"] for e in shown["emails"]][:1] == ["request"]
    assert shown["emails"][0]["state"] == "sent"
    assert [t["author"] for t in shown["turns"]][:1] == ["sender"]

    code, _, err = run(capsys, "requests", "show", "HFA-09999")
    assert code == 3 and "no request HFA-09999" in err

    code, out, _ = run(
        capsys, "requests", "close", second["reference"], "--reason", "Duplicate", "--by", "alice"
    )
    assert code == 0 and "closed" in out
    thread = await ops.status(second)
    assert thread["status"] == "closed"
    assert "closed by alice: Duplicate" in thread["turns"][-1]["body"]
    [closed] = audit_events(ops.services, "request.closed")
    assert closed.actor == "ops:alice" and closed.details["reason"] == "Duplicate"
    code, _, err = run(capsys, "requests", "close", second["reference"], "--reason", "again")
    assert code == 1 and "already closed" in err
    code, _, _ = run(capsys, "requests", "close", "HFA-09999", "--reason", "x")
    assert code == 3


async def test_outbox_list_failed_and_retry(
    ops: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    ops.sink.answer = "550 5.1.1 mailbox unavailable"
    filed = await ops.file()
    await ops.wait_status(filed, lambda t: t["turns"][-1]["kind"] == "email_failed")

    failed = run_json(capsys, "outbox", "list", "--failed")
    assert len(failed) == 1
    item = failed[0]
    assert item["reference"] == filed["reference"] and item["state"] == "dead"
    assert "550" in item["last_error"]
    code, out, _ = run(capsys, "outbox", "list", "--failed")
    assert code == 0 and "550" in out and filed["reference"] in out

    ops.sink.answer = None
    code, out, _ = run(capsys, "outbox", "retry", str(item["id"]))
    assert code == 0 and str(item["id"]) in out
    ops.services.outbox_ready.set()
    [message] = await ops.sink.wait_for(1)
    assert message["To"] == LAWYER
    for _ in range(100):
        states = {i["id"]: i["state"] for i in run_json(capsys, "outbox", "list")}
        if states[item["id"]] == "sent":
            break
        await asyncio.sleep(0.05)
    assert states[item["id"]] == "sent"
    # The thread said it failed; it now also says it went out, and who retried it.
    thread = await ops.wait_status(filed, lambda t: t["turns"][-1]["kind"] == "email_delivered")
    assert "after ops:ops-on-call retried it" in thread["turns"][-1]["body"]
    [retried] = audit_events(ops.services, "outbox.retry_requested")
    assert retried.actor == "ops:ops-on-call" and retried.details["previous_state"] == "dead"
    assert run_json(capsys, "outbox", "list", "--failed") == []

    code, _, err = run(capsys, "outbox", "retry", str(item["id"]))
    assert code == 1 and "already delivered" in err
    assert run(capsys, "outbox", "retry", "99999")[0] == 3
    assert run(capsys, "outbox", "retry")[0] == 2
    code, out, _ = run(capsys, "outbox", "retry", "--all-failed")
    assert code == 0 and "no failed deliveries" in out


def _no_thread_message() -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "stranger@example.org"
    msg["To"] = f"gateway@{REPLY_DOMAIN}"
    msg["Subject"] = "Hello"
    msg["Message-ID"] = f"<{uuid.uuid4().hex}@example.org>"
    # The bounce address takes only automatic mail about our Message-IDs; this one
    # names an id of ours that matches no request.
    msg["Auto-Submitted"] = "auto-replied"
    msg["In-Reply-To"] = f"<unknown@{REPLY_DOMAIN}>"
    msg.set_content("Is anyone there?")
    return msg


async def test_inbound_list_show_accept_and_reprocess(
    ops: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    filed, email = await file_and_mail(ops)
    token = re.search(r"reply\+([^@]+)@", str(email["Reply-To"]))
    assert token is not None
    # The lawyer answers from a second address: held, not recorded.
    held_reply = reply_to(email, "APPROVE from my phone.", sender=SECOND_LAWYER)
    await send(held_reply, ops.smtp_port)
    await send(_no_thread_message(), ops.smtp_port)

    async def outcomes() -> list[dict[str, Any]]:
        return run_json(capsys, "inbound", "list")  # type: ignore[no-any-return]

    for _ in range(200):
        listed = await outcomes()
        if len(listed) == 2 and all(m["outcome"] for m in listed):
            break
        await asyncio.sleep(0.05)
    held, stray = listed
    assert held["outcome"] == "unverified_sender" and held["reference"] == filed["reference"]
    assert stray["outcome"] == "no_thread"
    only = run_json(capsys, "inbound", "list", "--outcome", "no_thread")
    assert [m["id"] for m in only] == [stray["id"]]

    code, out, _ = run(capsys, "inbound", "show", str(held["id"]))
    assert code == 0
    assert f"From: Dana Counsel <{SECOND_LAWYER}>" in out
    assert "unverified_sender" in out and "APPROVE from my phone." in out
    assert "ELIDED" in out and "Please review clause 7." in out
    assert token.group(1) not in out  # the reply token is a secret: hidden in ops output
    assert "reply+…@" in out

    code, out, _ = run(capsys, "inbound", "accept", str(held["id"]), "--by", "bob")
    assert code == 0 and filed["reference"] in out
    thread = await ops.status(filed)
    [human] = [t for t in thread["turns"] if t["author"] == "human"]
    assert human["from"] == SECOND_LAWYER and human["accepted_by"] == "bob"
    assert human["kind"] == "approval" and thread["status"] == "answered"
    [accepted] = audit_events(ops.services, "inbound.accepted")
    assert accepted.actor == "ops:bob" and accepted.reference == filed["reference"]
    code, _, err = run(capsys, "inbound", "accept", str(held["id"]))
    assert code == 1 and "only a held message" in err
    assert run(capsys, "inbound", "accept", "99999")[0] == 3

    code, out, _ = run(capsys, "inbound", "reprocess", str(stray["id"]))
    assert code == 0 and "no_thread" in out
    [again] = audit_events(ops.services, "inbound.reprocess_requested")
    assert again.details == {"inbound_id": stray["id"], "previous_outcome": "no_thread"}
    code, _, err = run(capsys, "inbound", "reprocess", str(held["id"]))
    assert code == 1 and "recorded" in err  # recording it twice would duplicate the answer
    assert run(capsys, "inbound", "show", "99999")[0] == 3


async def test_show_names_a_held_reading_and_when_it_takes_effect(
    tmp_path: Path,
    sink: SmtpSink,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    running = await start_running(make_config(tmp_path, correction_window="60s"), sink)
    try:
        use_settings(monkeypatch, running.services.config.raw)
        filed, email = await file_and_mail(running)
        await send(reply_to(email, "Approved."), running.smtp_port)
        await running.wait_status(
            filed, lambda t: any(turn["kind"] == "pending_decision" for turn in t["turns"])
        )
        code, out, _ = run(capsys, "requests", "show", filed["reference"])
    finally:
        await stop_running(running)
    assert code == 0
    assert f"human/pending_decision from {LAWYER} read_as=approval (takes effect 20" in out
