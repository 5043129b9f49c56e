"""The whole request lifecycle over real sockets: HTTP in, email out, SMTP reply in, thread back."""

from __future__ import annotations

import re
from email.message import EmailMessage
from typing import Any

import aiosmtplib
import httpx
import jsonschema
import pytest

from gateway import contract
from tests.conftest import (
    LAWYER,
    REPLY_DOMAIN,
    Running,
    SmtpSink,
    start_running,
    stop_running,
    wait_outcomes,
)
from tests.mailkit import reply_to, send


def assert_fits(tool_name: str, result: dict[str, Any]) -> None:
    """Validate against the contract's output schema, additionalProperties:false enforced."""
    jsonschema.Draft202012Validator(contract.tool(tool_name)["outputSchema"]).validate(result)


def only_body(msg: EmailMessage, subtype: str) -> str:
    part = msg.get_body(preferencelist=(subtype,))
    assert part is not None, f"no text/{subtype} part"
    content: str = part.get_content()
    return content


async def file_and_get_email(
    running: Running, **fields: Any
) -> tuple[dict[str, Any], EmailMessage]:
    before = len(running.sink.received)
    filed = await running.file(**fields)
    messages = await running.sink.wait_for(before + 1)
    return filed, messages[before]


async def test_request_becomes_a_clear_email_with_a_signed_reply_address(running: Running) -> None:
    filed, email = await file_and_get_email(
        running,
        category="human_confirmation",
        request="May I wire EUR 40,000 to the new supplier?",
        context="Invoice 2211 from ACME GmbH; the bank details changed last week.",
        proposed_action="Send wire transfer of EUR 40,000 to DE89 3704 0044 0532 0130 00.",
        urgency="blocking",
        deadline="2026-12-02",
        agent_name="payables-bot",
        model="claude-opus-5",
        operator="Example Corp finance",
        reply_to="slack:#finance-approvals",
        ticket="FIN-881",
    )
    assert_fits(contract.REQUEST_TOOL, filed)
    assert re.fullmatch(r"HFA-\d{5}", filed["reference"])
    assert filed["status"] == "recorded" and filed["human_has_reviewed"] is False
    assert filed["reply_expected_via"] == "slack:#finance-approvals"

    assert email["To"] == LAWYER
    subject = str(email["Subject"])
    assert filed["reference"] in subject and "May I wire EUR 40,000" in subject
    assert "BLOCKING" in subject
    reply_address = email["Reply-To"].addresses[0].addr_spec
    match = re.fullmatch(rf"reply\+([a-z2-7]+)@{re.escape(REPLY_DOMAIN)}", reply_address)
    assert match, reply_address
    token = match.group(1)
    assert len("reply+" + token) < 64
    assert token in str(email["Message-ID"])
    assert email["Auto-Submitted"] == "auto-generated"
    assert email["X-Auto-Response-Suppress"] == "All"

    text = only_body(email, "plain")
    html = only_body(email, "html")
    for needle in (
        "May I wire EUR 40,000",
        "PROPOSED ACTION",
        "DE89 3704",
        "payables-bot",
        "claude-opus-5",
        "Example Corp finance",
        "Wed 2 Dec 2026",
        "Human confirmation",
        "APPROVE",
        "REJECT",
        "DECLINE",
        "QUESTION",
        "FIN-881",
        "Invoice 2211",
    ):
        assert needle in text, needle
    assert "Proposed action" in html and "DE89 3704" in html
    # The secret never travels in the email.
    assert filed["access_token"] not in email.as_string()


async def test_agent_text_is_escaped_in_html_and_kept_out_of_headers(running: Running) -> None:
    _filed, email = await file_and_get_email(
        running,
        request="Review <script>alert(1)</script> now\r\nBcc: victim@example.com",
        context='<a href="https://evil.example">click</a>',
    )
    html = only_body(email, "html")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert '<a href="https://evil.example">' not in html
    assert email["Bcc"] is None
    assert "\n" not in str(email["Subject"]) and "\r" not in str(email["Subject"])


async def test_top_posted_reply_is_recorded_and_read_back_over_api_and_thread_url(
    running: Running,
) -> None:
    filed, email = await file_and_get_email(running, proposed_action="Sign the NDA as is.")
    await send(
        reply_to(email, "APPROVED. The clause is standard.", signature="Dana Counsel\nPartner"),
        running.smtp_port,
    )
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
    assert_fits(contract.STATUS_TOOL, thread)
    assert thread["status"] == "answered"
    human = [t for t in thread["turns"] if t["author"] == "human"]
    assert len(human) == 1
    turn = human[0]
    # What the paragraph says after the decision word is kept with it: never dropped.
    assert turn["kind"] == "conditional_approval"
    assert turn["conditions"] == ["The clause is standard."]
    assert turn["from"] == LAWYER
    assert turn["body"] == "APPROVED. The clause is standard."
    assert "Please review clause 7." in turn["elided"]
    assert turn["message_id"]
    kinds = [(t["author"], t["kind"]) for t in thread["turns"]]
    assert kinds[0] == ("sender", "request")
    assert ("system", "status_changed") in kinds

    # thread_url: the same JSON, opened by its own read-only capability.
    async with httpx.AsyncClient() as client:
        via_url = (await client.get(filed["thread_url"])).json()
    assert via_url == thread
    assert filed["access_token"] not in filed["thread_url"]


async def test_html_only_reply_with_signature(running: Running) -> None:
    filed, email = await file_and_get_email(running)
    await send(
        reply_to(
            email,
            "Clause 7 caps liability too low; ask for 2x fees.",
            html_only=True,
            signature="Dana Counsel | Example LLP",
        ),
        running.smtp_port,
    )
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
    turn = next(t for t in thread["turns"] if t["author"] == "human")
    assert turn["kind"] == "reply"
    assert "Clause 7 caps liability too low; ask for 2x fees." in turn["body"]
    assert "Please review clause 7" not in turn["body"]
    assert thread["status"] == "answered"


async def test_follow_up_is_emailed_in_the_same_mail_thread(running: Running) -> None:
    filed, first = await file_and_get_email(running)
    response = await running.http.post(
        f"/v1/requests/{filed['reference']}/messages",
        json={
            "message": "The counterparty also sent an updated schedule B.",
            "attachment_ref": "b2",
        },
        headers={"Authorization": f"Bearer {filed['access_token']}"},
    )
    assert response.status_code == 201, response.text
    added = response.json()
    assert_fits(contract.ADD_TOOL, added)
    assert added["thread_status"] == "recorded"
    follow_up = (await running.sink.wait_for(2))[1]
    assert follow_up["In-Reply-To"] == first["Message-ID"]
    assert str(first["Message-ID"]) in str(follow_up["References"])
    assert follow_up["Reply-To"] == first["Reply-To"]
    plain = only_body(follow_up, "plain")
    assert "updated schedule B" in plain
    # As in its HTML part, the agent's new message (the reason for the email) comes
    # first, then the summary and the one-click answers.
    assert plain.index("THE NEW MESSAGE") < plain.index("WHAT IS ASKED")
    assert plain.index("WHAT IS ASKED") < plain.index("ANSWER IN ONE CLICK")
    thread = await running.status(filed)
    message = next(t for t in thread["turns"] if t["kind"] == "message")
    assert message["author"] == "sender" and message["attachment_ref"] == "b2"


async def test_withdrawal_closes_the_thread_and_tells_the_lawyer(running: Running) -> None:
    filed, _first = await file_and_get_email(running)
    response = await running.http.post(
        f"/v1/requests/{filed['reference']}/messages",
        json={"message": "Resolved internally; no longer needed.", "withdraw": True},
        headers={"Authorization": f"Bearer {filed['access_token']}"},
    )
    assert response.status_code == 201
    assert response.json()["thread_status"] == "closed"
    notice = (await running.sink.wait_for(2))[1]
    assert "withdr" in only_body(notice, "plain").lower()
    thread = await running.status(filed)
    assert thread["status"] == "closed"
    assert [t["kind"] for t in thread["turns"]][-2:] == ["withdrawal", "status_changed"]
    again = await running.http.post(
        f"/v1/requests/{filed['reference']}/messages",
        json={"message": "one more thing"},
        headers={"Authorization": f"Bearer {filed['access_token']}"},
    )
    assert again.status_code == 409
    assert again.json()["error"]["details"][0]["field"] == "reference"


async def test_duplicate_delivery_is_recorded_once(running: Running) -> None:
    filed, email = await file_and_get_email(running)
    reply = reply_to(email, "Looks fine to me.", message_id="<same-id-1@lawfirm.example>")
    await send(reply, running.smtp_port)
    await send(reply, running.smtp_port)
    await running.wait_status(filed, lambda t: t["human_has_replied"])

    def outcomes() -> list[str | None]:
        from sqlalchemy import select

        from gateway.store.models import InboundMessage

        with running.services.db.read_only() as session:
            return list(session.scalars(select(InboundMessage.outcome).order_by(InboundMessage.id)))

    for _ in range(100):
        if None not in outcomes() and len(outcomes()) == 2:
            break
        import asyncio

        await asyncio.sleep(0.05)
    assert outcomes() == ["recorded", "duplicate"]
    thread = await running.status(filed)
    assert len([t for t in thread["turns"] if t["author"] == "human"]) == 1


async def test_reply_to_the_bounce_address_is_refused_with_where_to_reply(
    running: Running,
) -> None:
    filed, email = await file_and_get_email(running)
    # Mail to the bounce address needs no reply token; our Message-ID in In-Reply-To is
    # no proof of who may answer, so a person's reply there is refused, saying where to
    # reply instead, and never recorded.
    reply = reply_to(email, "Fine by me.", to=f"gateway@{REPLY_DOMAIN}")
    with pytest.raises(aiosmtplib.SMTPResponseException) as info:
        await aiosmtp_send_to(reply, running.smtp_port, f"gateway@{REPLY_DOMAIN}")
    assert info.value.code == 550 and "Reply-To" in info.value.message
    thread = await running.status(filed)
    assert not thread["human_has_replied"]


async def aiosmtp_send_to(message: EmailMessage, port: int, rcpt: str) -> None:
    await aiosmtplib.send(message, hostname="127.0.0.1", port=port, recipients=[rcpt])


async def test_reply_from_another_address_is_kept_but_not_recorded(running: Running) -> None:
    filed, email = await file_and_get_email(running)
    spoof = reply_to(email, "APPROVED", sender="mallory@evil.example", display_name=LAWYER)
    await send(spoof, running.smtp_port)

    assert await wait_outcomes(running, 1) == ["unverified_sender"]
    thread = await running.status(filed)
    assert not thread["human_has_replied"] and thread["status"] == "recorded"


async def test_relay_refusal_is_retried_then_delivered(config: Any, sink: SmtpSink) -> None:
    sink.answer = "451 4.3.0 Try again later"
    running = await start_running(config, sink)
    try:
        await running.file()
        import asyncio

        await asyncio.sleep(0.3)
        assert sink.received == []
        sink.answer = None
        await sink.wait_for(1, timeout=10)
    finally:
        await stop_running(running)


async def test_permanent_relay_failure_is_visible_on_the_thread(
    config: Any, sink: SmtpSink
) -> None:
    sink.answer = "550 5.1.1 No such user"
    running = await start_running(config, sink)
    try:
        filed = await running.file()
        thread = await running.wait_status(
            filed, lambda t: any(x["kind"] == "email_failed" for x in t["turns"])
        )
        failed = next(t for t in thread["turns"] if t["kind"] == "email_failed")
        assert failed["author"] == "system" and "550" in failed["body"]
    finally:
        await stop_running(running)


async def test_references_are_sequential(running: Running) -> None:
    first = await running.file()
    second = await running.file()
    assert int(second["reference"][4:]) == int(first["reference"][4:]) + 1


async def test_rejection_recorded(running: Running) -> None:
    filed, email = await file_and_get_email(running)
    await send(reply_to(email, "REJECT - the indemnity is uncapped."), running.smtp_port)
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
    turn = next(t for t in thread["turns"] if t["author"] == "human")
    assert turn["kind"] == "rejection" and turn["decision"] == "rejection"
    assert thread["status"] == "answered"
