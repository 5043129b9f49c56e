"""Answers as lawyers send them, end to end over SMTP: conditions, obsolete From syntax,
a stranger's reply, a late reply. Real sockets: the gateway, an aiosmtpd relay sink, a
webhook receiver, and the unmodified HumanLayer SDK."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import aiosmtplib
import pytest
from humanlayer import ContactChannel, EmailContactChannel, FunctionCallSpec, HumanLayer

from gateway.cli import main
from tests.conftest import (
    LAWYER,
    Running,
    SmtpSink,
    make_config,
    start_running,
    stop_running,
    wait_outcomes,
)
from tests.http.test_a2h import APPROVAL_SCHEMA, ask_and_answer, message
from tests.mailkit import reply_to, send
from tests.outbound.test_push import Receiver, receiver

__all__ = ["receiver"]  # the webhook receiver fixture, shared with the push tests

AGENT_MAILBOX = "agent-inbox@agents.example"
STRANGER = "stranger@elsewhere.example"
CONDITIONS = [
    "the governing law is changed to Germany",
    "the term is limited to 2 years",
]
CONDITIONAL = "Approved, subject to:\n- " + "\n- ".join(CONDITIONS)
KEY = "hl-answers-key-0123456789abcdef"


@pytest.fixture
async def gateway(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(tmp_path, database_url=database_url, webhook_allow_private="1")
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


async def file_and_mail(running: Running, **fields: Any) -> tuple[dict[str, Any], EmailMessage]:
    before = len(running.sink.received)
    filed = await running.file(
        category="human_confirmation",
        request="May we sign the distribution agreement with Nordwind GmbH?",
        proposed_action="Sign and return the agreement today.",
        **fields,
    )
    return filed, (await running.sink.wait_for(before + 1))[before]


def human_turns(thread: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in thread["turns"] if t["author"] == "human"]


def plain(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    text: str = part.get_content()
    return text


def sent_to(running: Running, address: str) -> list[EmailMessage]:
    return [m for m in running.sink.messages() if str(m["To"]) == address]


async def test_a_conditional_approval_reaches_the_webhook_and_the_receipt(
    gateway: Running, receiver: Receiver
) -> None:
    filed, email = await file_and_mail(gateway, reply_to=receiver.url)
    await send(reply_to(email, CONDITIONAL, signature="Dana"), gateway.smtp_port)
    thread = await gateway.wait_status(filed, lambda t: t["human_has_replied"])
    turn = human_turns(thread)[0]
    assert turn["kind"] == "conditional_approval" and turn["decision"] == "approval"
    assert turn["conditions"] == CONDITIONS
    assert thread["status"] == "answered"
    # The agent's webhook: never a bare approval.
    await receiver.wait_for(1)
    event = json.loads(receiver.calls[0][2])
    pushed = next(t for t in event["data"]["turns"] if t["author"] == "human")
    assert pushed["kind"] == "conditional_approval"
    assert pushed["conditions"] == CONDITIONS
    assert "WITH CONDITIONS" in event["data"]["notice"]
    # The lawyer's receipt restates the conditions.
    receipt = (await gateway.sink.wait_for(2))[1]
    assert receipt["To"] == LAWYER
    text = plain(receipt)
    assert "conditional approval" in text
    for condition in CONDITIONS:
        assert condition in text


async def test_a_conditional_approval_reaches_the_push_email(gateway: Running) -> None:
    filed, email = await file_and_mail(gateway, reply_to=AGENT_MAILBOX)
    await send(reply_to(email, CONDITIONAL), gateway.smtp_port)
    await gateway.wait_status(filed, lambda t: t["human_has_replied"])
    for _ in range(200):
        pushes = sent_to(gateway, AGENT_MAILBOX)
        if pushes:
            break
        await asyncio.sleep(0.05)
    assert len(pushes) == 1
    text = plain(pushes[0])
    assert "conditional approval" in text
    assert "WITH CONDITIONS" in text
    for condition in CONDITIONS:
        assert condition in text


async def test_a_reply_from_dr_jane_smith_is_recorded(gateway: Running) -> None:
    filed, email = await file_and_mail(gateway)
    reply = reply_to(email, "Rejected - clause 9 must go.", display_name="")
    reply.replace_header("From", f"Dr. Jane Smith <{LAWYER}>")
    await send(reply, gateway.smtp_port, sender=LAWYER)
    thread = await gateway.wait_status(filed, lambda t: t["human_has_replied"])
    turn = human_turns(thread)[0]
    assert turn["kind"] == "rejection" and turn["from"] == LAWYER
    assert await wait_outcomes(gateway, 1) == ["recorded"]


async def test_a_strangers_reply_gets_one_notice_and_one_system_turn(
    gateway: Running,
    receiver: Receiver,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    filed, email = await file_and_mail(gateway, reply_to=receiver.url)
    await send(
        reply_to(email, "APPROVED", sender=STRANGER, display_name="Someone"), gateway.smtp_port
    )
    assert await wait_outcomes(gateway, 1) == ["unverified_sender"]
    thread = await gateway.status(filed)
    assert human_turns(thread) == [] and thread["status"] == "recorded"
    held = [t for t in thread["turns"] if t["kind"] == "held_reply"]
    assert len(held) == 1 and held[0]["author"] == "system"
    assert "held for review" in held[0]["body"] and "APPROVED" not in held[0]["body"]
    # The agent hears of it too.
    await receiver.wait_for(1)
    event = json.loads(receiver.calls[0][2])
    assert event["type"] == "request.held_reply"
    assert [t["kind"] for t in event["data"]["turns"]] == ["held_reply"]
    notices = await _wait_sent(gateway, STRANGER, 1)
    assert len(notices) == 1
    notice = notices[0]
    assert notice["Auto-Submitted"] == "auto-replied"
    text = plain(notice)
    assert "NOT recorded" in text and "What to do" in text
    # Nothing of the thread goes to an address that was not on it.
    for secret in ("Nordwind", filed["reference"], "distribution agreement", LAWYER):
        assert secret not in notice.as_string()
    # A second reply the same day that carries a decision word: held, on the thread again,
    # and its sender told again (a person who meant to answer is never left in silence).
    await send(
        reply_to(email, "Approved!", sender=STRANGER, display_name="Someone"), gateway.smtp_port
    )
    assert await wait_outcomes(gateway, 2) == ["unverified_sender", "unverified_sender"]
    assert len(await _wait_sent(gateway, STRANGER, 2)) == 2
    # Ops see the held messages, with the command that records one.
    for name, value in gateway.services.config.raw.items():
        monkeypatch.setenv(f"HFA_{name.upper()}", value)
    capsys.readouterr()
    assert main(["requests", "show", filed["reference"]]) == 0
    out = capsys.readouterr().out
    assert "HELD MESSAGES" in out and "hfa inbound accept 1 --by NAME" in out


async def _wait_sent(running: Running, address: str, count: int) -> list[EmailMessage]:
    for _ in range(200):
        found = sent_to(running, address)
        if len(found) >= count:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"nothing sent to {address}")


async def test_no_notice_to_a_null_sender_or_an_auto_reply(gateway: Running) -> None:
    _filed, email = await file_and_mail(gateway)
    auto = reply_to(
        email, "I am away.", sender=STRANGER, extra_headers={"Auto-Submitted": "auto-replied"}
    )
    await send(auto, gateway.smtp_port)
    await send(reply_to(email, "APPROVED", sender=STRANGER), gateway.smtp_port, sender="")
    await wait_outcomes(gateway, 2)
    await asyncio.sleep(0.5)
    assert sent_to(gateway, STRANGER) == []


async def test_a_late_reply_keeps_the_status_closed_and_says_so(
    gateway: Running, receiver: Receiver
) -> None:
    filed, email = await file_and_mail(gateway, reply_to=receiver.url)
    withdrawn = await gateway.http.post(
        f"/v1/requests/{filed['reference']}/messages",
        json={"message": "Resolved internally.", "withdraw": True},
        headers={"Authorization": f"Bearer {filed['access_token']}"},
    )
    assert withdrawn.status_code == 201
    await send(reply_to(email, "APPROVE"), gateway.smtp_port)
    thread = await gateway.wait_status(filed, lambda t: bool(human_turns(t)))
    assert thread["status"] == "closed"
    turn = human_turns(thread)[0]
    assert turn["kind"] == "approval" and turn["late"] is True
    await receiver.wait_for(1)
    event = json.loads(receiver.calls[-1][2])
    assert event["data"]["status"] == "closed"
    assert "arrived after the request was closed" in event["data"]["notice"]
    # The lawyer's receipt says the same: the request had been closed.
    receipts = await _wait_sent(gateway, LAWYER, 3)  # request, withdrawal notice, receipt
    assert "arrived after the request was closed" in plain(receipts[-1])


@pytest.fixture
async def humanlayer_gateway(tmp_path: Path, sink: SmtpSink) -> AsyncIterator[Running]:
    config = make_config(tmp_path, api_keys=f"workshop:{KEY}")
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


async def test_humanlayer_sdk_gets_approved_with_the_conditions_in_the_comment(
    humanlayer_gateway: Running,
) -> None:
    running = humanlayer_gateway
    base = f"http://127.0.0.1:{running.gateway.http_port}/humanlayer/v1"
    hl = HumanLayer(api_key=KEY, api_base_url=base, run_id="run", sleep=lambda s: time.sleep(0.05))
    spec = FunctionCallSpec(
        fn="sign_agreement",
        kwargs={"counterparty": "Nordwind GmbH"},
        channel=ContactChannel(email=EmailContactChannel(address=LAWYER)),
    )
    task = asyncio.create_task(asyncio.to_thread(lambda: hl.fetch_approval(spec)))
    email = (await running.sink.wait_for(1))[0]
    await send(reply_to(email, CONDITIONAL), running.smtp_port)
    done = await asyncio.wait_for(task, 20)
    status = done.as_completed()
    assert status.approved is True
    assert status.comment is not None
    assert status.comment.startswith("APPROVED WITH CONDITIONS")
    for condition in CONDITIONS:
        assert condition in status.comment


@pytest.fixture
async def alias_gateway(tmp_path: Path, sink: SmtpSink) -> AsyncIterator[Running]:
    config = make_config(tmp_path, lawyers=f"{LAWYER}|dana.home@mail.example")
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


async def test_a_reply_from_the_lawyers_other_address_is_the_lawyers(
    alias_gateway: Running,
) -> None:
    filed, email = await file_and_mail(alias_gateway)
    # Mail goes to the first address only.
    assert email["To"] == LAWYER
    await send(
        reply_to(email, "Rejected.", sender="Dana.Home@mail.example"), alias_gateway.smtp_port
    )
    thread = await alias_gateway.wait_status(filed, lambda t: t["human_has_replied"])
    turn = human_turns(thread)[0]
    assert turn["kind"] == "rejection" and turn["from"] == "dana.home@mail.example"


async def test_a_person_writing_to_the_bounce_address_is_told_and_no_thread_is_touched(
    gateway: Running,
) -> None:
    filed, _email = await file_and_mail(gateway)
    stray = EmailMessage()
    stray["From"] = f"Someone <{STRANGER}>"
    stray["To"] = "gateway@hfa.example"
    stray["Subject"] = "Approved"
    stray["Message-ID"] = "<stray-1@elsewhere.example>"
    stray.set_content("Approved.")
    # The bounce address takes no person's mail: the refusal at DATA is the notice, and
    # the sender's own server returns it to them with the text saying where to reply.
    with pytest.raises(aiosmtplib.SMTPResponseException) as refused:
        await send(stray, gateway.smtp_port)
    assert refused.value.code == 550 and "Reply-To" in refused.value.message
    thread = await gateway.status(filed)
    assert [t["kind"] for t in thread["turns"]] == ["request"]


async def test_a2h_gets_approved_with_the_conditions(gateway: Running) -> None:
    body = message("sign-1", "May I sign the Nordwind agreement?", APPROVAL_SCHEMA)
    got = await ask_and_answer(gateway, body, CONDITIONAL)
    response = got["status"]["response"]
    assert response["approved"] is True
    assert response["comment"].startswith("APPROVED WITH CONDITIONS")
    assert got["status"]["conditions"] == CONDITIONS
