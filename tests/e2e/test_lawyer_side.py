"""What the lawyer is told over SMTP: withdrawals, ops closes, unclear answers, attachments."""

from __future__ import annotations

import asyncio
import logging
import os
from email.message import EmailMessage
from typing import Any

import pytest
from sqlalchemy import func, select

from gateway.cli import main
from gateway.store.models import InboundMessage
from tests.conftest import LAWYER, Running
from tests.mailkit import reply_to, send


@pytest.fixture
def ops(running: Running, monkeypatch: pytest.MonkeyPatch) -> Running:
    """The CLI sees the settings of the running gateway, as on the same host."""
    for key in [k for k in os.environ if k.startswith("HFA_") and not k.startswith("HFA_TEST_")]:
        monkeypatch.delenv(key)
    for name, value in running.services.config.raw.items():
        monkeypatch.setenv(f"HFA_{name.upper()}", value)
    return running


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        assert main(list(argv)) == 0
    finally:
        root.handlers[:] = handlers
        # setLevel, not the attribute: it also forgets each logger's cached answer to
        # isEnabledFor, which the command's own level would otherwise leave behind.
        root.setLevel(level)
    return capsys.readouterr().out


def plain(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


async def filed_with_email(running: Running, **fields: Any) -> tuple[dict[str, Any], EmailMessage]:
    filed = await running.file(
        category="human_confirmation",
        request="May we sign the distribution agreement with Nordwind GmbH?",
        proposed_action="Sign and return the agreement today.",
        **fields,
    )
    return filed, (await running.sink.wait_for(1))[0]


async def test_a_reply_after_a_withdrawal_is_kept_but_not_acted_on(running: Running) -> None:
    filed, email = await filed_with_email(running)
    response = await running.http.post(
        f"/v1/requests/{filed['reference']}/messages",
        json={"message": "Resolved internally; no longer needed.", "withdraw": True},
        headers={"Authorization": f"Bearer {filed['access_token']}"},
    )
    assert response.status_code == 201
    withdrawal = (await running.sink.wait_for(2))[1]
    assert str(withdrawal["Subject"]).startswith("Withdrawn, no answer needed: ")
    assert "no answer is needed" in plain(withdrawal)
    assert "mailto:" not in plain(withdrawal)  # nothing to click when nothing is asked

    await send(reply_to(email, "APPROVE"), running.smtp_port)
    receipt = (await running.sink.wait_for(3))[2]
    text = plain(receipt)
    assert "KEPT, NOT ACTED ON" in text and "withdrawn by the agent" in text
    assert "The agent is told that you approved" not in text
    thread = await running.status(filed)
    assert thread["status"] == "closed"


async def test_an_unclear_answer_says_why_and_which_decision_stands(running: Running) -> None:
    filed, email = await filed_with_email(running)
    await send(reply_to(email, "APPROVE"), running.smtp_port)
    await running.wait_status(filed, lambda t: t["status"] == "answered")
    await running.sink.wait_for(2)
    await send(
        reply_to(email, "Approve clause 7 as redlined but reject clause 9.3."), running.smtp_port
    )
    receipt = (await running.sink.wait_for(3))[2]
    text = plain(receipt)
    assert str(receipt["Subject"]).startswith("Recorded: your reply (no decision): ")
    assert "No decision was read from your reply" in text
    assert "more than one decision" in text
    assert "The decision on record is still your APPROVAL of" in text
    # The outcome was reached before this reply: no answer now can change it, so the
    # receipt offers no buttons (a reply is still recorded).
    assert "<mailto:reply+" not in text


async def test_a_receipt_lists_the_attachments_received(running: Running) -> None:
    _filed, email = await filed_with_email(running)
    reply = reply_to(email, "REJECT\n\nSee my redline.")
    reply.add_attachment(
        b"%PDF-1.4 redline" * 300,
        maintype="application",
        subtype="pdf",
        filename="Nordwind v4 - redline.pdf",
    )
    await send(reply, running.smtp_port)
    receipt = (await running.sink.wait_for(2))[1]
    text = plain(receipt)
    assert "You REJECTED:" in text and "| Sign and return the agreement today." in text
    assert "Attachments received:" in text
    assert "Nordwind v4 - redline.pdf (4.7 KB, sha256 " in text


async def test_an_ops_close_is_mailed_to_the_lawyers(
    ops: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    filed, _email = await filed_with_email(ops)
    cli(capsys, "requests", "close", filed["reference"], "--reason", "Handled by phone")
    ops.services.outbox_ready.set()
    notice = (await ops.sink.wait_for(2))[1]
    assert notice["To"] == LAWYER
    assert str(notice["Subject"]).startswith("Closed, no answer needed: ")
    text = plain(notice)
    assert "closed by " in text and "Handled by phone" in text
    assert "no answer is needed" in text.lower().replace("\n", " ")


async def test_requests_show_lists_action_decisions_conditions_and_held_mail(
    ops: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    filed, email = await filed_with_email(ops, agent_name="bot\x1b[2K\u202eEVIL")
    await send(
        reply_to(email, "APPROVE WITH CONDITIONS\n\nConditions:\n- only the signed PDF"),
        ops.smtp_port,
    )
    await ops.wait_status(filed, lambda t: t["status"] == "answered")
    await send(reply_to(email, "REJECT", sender="someone@elsewhere.example"), ops.smtp_port)

    def held() -> int:
        with ops.services.db.read_only() as session:
            query = select(func.count()).where(InboundMessage.outcome == "unverified_sender")
            return int(session.scalar(query) or 0)

    for _ in range(200):
        if await ops.services.db.run(held) == 1:
            break
        await asyncio.sleep(0.05)
    out = cli(capsys, "requests", "show", filed["reference"])
    assert "PROPOSED ACTION" in out and "Sign and return the agreement today." in out
    assert "decision=approval" in out and "condition 1: only the signed PDF" in out
    assert "HELD MESSAGES" in out and "unverified_sender" in out
    assert "\x1b" not in out and "\u202e" not in out
    assert "[U+001B][2K[U+202E]EVIL" in out
