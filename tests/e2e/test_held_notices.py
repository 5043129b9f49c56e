"""Held-message notices over SMTP: they reach a person who meant to answer, and never
become a way to mail strangers (RFC 3834; the rules of ``gateway.inbound.held``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtplib import SMTP

from gateway.settings.config import Config
from tests.conftest import (
    LAWYER,
    Running,
    SmtpSink,
    start_running,
    stop_running,
    wait_outcomes,
)
from tests.mailkit import reply_to, send

COLLEAGUE = "partner@lawfirm.example"  # the lawyer's firm, not the lawyer


async def filed_with_email(running: Running) -> tuple[dict[str, Any], EmailMessage]:
    filed = await running.file(
        request="May we sign the Nordwind agreement?", proposed_action="Sign it today."
    )
    # By its reference: an earlier reply's notice may reach the relay after this filing.
    return filed, await running.sink.request_email(filed["reference"])


def notices(running: Running) -> list[tuple[str, list[str], EmailMessage]]:
    """(envelope sender, recipients, message) of each notice the relay received."""
    found = []
    for (mail_from, rcpts, _raw), message in zip(
        running.sink.received, running.sink.messages(), strict=True
    ):
        if message["Subject"] == "Your email was not recorded":
            found.append((mail_from, rcpts, message))
    return found


async def settled(running: Running, count: int) -> None:
    await wait_outcomes(running, count, timeout=20)
    # The outbox delivers what the worker queued within a few polls.
    await asyncio.sleep(1.0)


async def test_forged_envelope_senders_on_one_thread_get_one_notice_with_a_null_return_path(
    running: Running,
) -> None:
    _filed, email = await filed_with_email(running)
    for i in range(8):
        held = reply_to(email, "Approved.", sender="intruder@evil.example")
        await send(held, running.smtp_port, sender=f"victim{i}@victims.example")
    await settled(running, 8)
    sent = notices(running)
    assert len(sent) == 1, [n[1] for n in sent]
    (mail_from, rcpts, _message) = sent[0]
    assert mail_from in ("", "<>") and rcpts == ["victim0@victims.example"]


@pytest.mark.parametrize(
    "envelope",
    ["owner-legal@lists.example", "legal-request@lists.example", "mailer-daemon@mx.example"],
)
async def test_no_notice_to_list_or_machine_senders(running: Running, envelope: str) -> None:
    _filed, email = await filed_with_email(running)
    await send(reply_to(email, "Approved.", sender=envelope), running.smtp_port, sender=envelope)
    await settled(running, 1)
    assert notices(running) == []


async def test_a_colleagues_second_held_decision_the_same_day_gets_its_notice(
    running: Running,
) -> None:
    _filed, email = await filed_with_email(running)
    for count, word in enumerate(("APPROVE", "REJECT"), start=1):
        held = reply_to(email, word, sender=COLLEAGUE, display_name="Pat Partner")
        await send(held, running.smtp_port, sender=COLLEAGUE)
        await settled(running, count)
        assert len(notices(running)) == count
    for mail_from, rcpts, message in notices(running):
        assert mail_from in ("", "<>") and rcpts == [COLLEAGUE]
        text = message.get_body(preferencelist=("plain",))
        assert text is not None
        # The true reason, and what to do: who the request went to, how it is accepted.
        body = " ".join(text.get_content().split())
        assert LAWYER in body and "operator to accept" in body
        assert "did not come from the address the request was sent to" not in body


async def test_other_held_messages_are_noticed_once_an_hour_per_address(
    running: Running,
) -> None:
    # Two threads, the same stranger with no decision word: one notice, not two.
    for _ in range(2):
        _filed, email = await filed_with_email(running)
        await send(
            reply_to(email, "Who is this from?", sender="someone@else.example"),
            running.smtp_port,
            sender="someone@else.example",
        )
    await settled(running, 2)
    assert len(notices(running)) == 1


@pytest.fixture
async def behind_trusted_mx(config: Config, sink: SmtpSink) -> AsyncIterator[Running]:
    running = await start_running(config.with_overrides(trusted_authserv_id="mx.ours.test"), sink)
    yield running
    await stop_running(running)


async def test_no_notice_when_the_trusted_server_says_the_envelope_sender_failed_spf(
    behind_trusted_mx: Running,
) -> None:
    running = behind_trusted_mx
    _filed, email = await filed_with_email(running)
    held = reply_to(email, "Approved.", sender=COLLEAGUE)
    raw = (
        b"Authentication-Results: mx.ours.test; spf=fail smtp.mailfrom=lawfirm.example\r\n"
        + held.as_bytes()
    )
    async with SMTP(hostname="127.0.0.1", port=running.smtp_port) as client:
        await client.sendmail(COLLEAGUE, [str(email["Reply-To"])], raw)
    await settled(running, 1)
    assert notices(running) == []
