"""Real-looking replies over SMTP, each landing in the thread as a lawyer and an agent expect."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

import aiosmtplib

from tests.conftest import LAWYER, REPLY_DOMAIN, Running, wait_outcomes
from tests.mailkit import quoted, reply_to, send


async def filed_with_email(running: Running) -> tuple[dict[str, Any], EmailMessage]:
    filed = await running.file(
        category="human_confirmation",
        request="May we sign the distribution agreement with Nordwind GmbH?",
        proposed_action="Sign and return the agreement today.",
    )
    return filed, (await running.sink.wait_for(1))[0]


def human_turns(thread: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in thread["turns"] if t["author"] == "human"]


async def test_outlook_html_approval(running: Running) -> None:
    filed, email = await filed_with_email(running)
    msg = EmailMessage()
    msg["From"] = f'"Counsel, Dana" <{LAWYER}>'
    msg["To"] = str(email["Reply-To"])
    msg["Subject"] = "RE: " + str(email["Subject"])
    msg["Message-ID"] = "<AM0PR01MB1234@eurprd01.prod.outlook.com>"
    msg["In-Reply-To"] = str(email["Message-ID"])
    msg["Thread-Index"] = "AdnG7p0x1y2z3A=="
    msg.set_content(
        '<html><head><meta name="Generator" content="Microsoft Word 15"></head><body lang="EN-US">'
        '<div class="WordSection1"><p class="MsoNormal">Approved.<o:p></o:p></p>'
        '<p class="MsoNormal">Kind regards,<br>Dana<o:p></o:p></p>'
        '<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0in 0in 0in">'
        f'<p class="MsoNormal"><b>From:</b> HFA Gateway &lt;{email["From"]}&gt;<br>'
        "<b>Sent:</b> Monday, November 30, 2026 9:12 AM<br>"
        f"<b>To:</b> {LAWYER}<br><b>Subject:</b> {email['Subject']}</p></div>"
        f"<p>{quoted(email)}</p></div></body></html>",
        subtype="html",
    )
    await send(msg, running.smtp_port)
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
    turn = human_turns(thread)[0]
    assert turn["kind"] == "approval" and turn["decision"] == "approval"
    assert turn["body"].startswith("Approved.")
    assert "distribution agreement" not in turn["body"]
    assert thread["status"] == "answered"


async def test_german_rejection(running: Running) -> None:
    filed, email = await filed_with_email(running)
    german = reply_to(
        email,
        "Abgelehnt. Die Haftungsklausel in § 9 ist nicht akzeptabel.",
        signature="Mit freundlichen Grüßen\nDr. Dana Berater",
    )
    german.replace_header("Subject", "AW: " + str(email["Subject"]))
    await send(german, running.smtp_port)
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
    turn = human_turns(thread)[0]
    assert turn["kind"] == "rejection"
    assert turn["body"].startswith("Abgelehnt. Die Haftungsklausel")
    assert "Mit freundlichen Grüßen" not in turn["body"]
    assert "Mit freundlichen Grüßen" in turn["elided"]


async def test_conditional_approval_keeps_its_list(running: Running) -> None:
    filed, email = await filed_with_email(running)
    text = (
        "Approved, subject to:\n"
        "- the governing law is changed to Germany\n"
        "- the term is limited to 2 years\n"
        "- Nordwind confirms the insurance in writing"
    )
    await send(reply_to(email, text, signature="Dana"), running.smtp_port)
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
    turn = human_turns(thread)[0]
    assert turn["kind"] == "conditional_approval" and turn["decision"] == "approval"
    assert turn["conditions"] == [
        "the governing law is changed to Germany",
        "the term is limited to 2 years",
        "Nordwind confirms the insurance in writing",
    ]
    assert turn["body"] == text


async def test_out_of_office_is_a_system_turn_never_an_answer(running: Running) -> None:
    filed, email = await filed_with_email(running)
    ooo = EmailMessage()
    ooo["From"] = LAWYER
    ooo["To"] = str(email["Reply-To"])
    ooo["Subject"] = "Automatic reply: " + str(email["Subject"])
    ooo["Auto-Submitted"] = "auto-replied"
    ooo["X-Auto-Response-Suppress"] = "All"
    ooo["Message-ID"] = "<ooo-1@lawfirm.example>"
    ooo.set_content(
        "I am out of the office until 7 December. Approved requests go to my colleague."
    )
    await send(ooo, running.smtp_port)
    assert await wait_outcomes(running, 1) == ["auto_reply"]
    thread = await running.status(filed)
    assert not thread["human_has_replied"] and thread["status"] == "recorded"
    system = [t for t in thread["turns"] if t["kind"] == "auto_reply"]
    assert system and system[0]["author"] == "system"
    assert "auto-reply" in system[0]["body"].lower()
    # No receipt is sent in answer to an auto-reply.
    await asyncio.sleep(0.3)
    assert len(running.sink.received) == 1


async def test_bounce_of_the_original_email_marks_it_failed(running: Running) -> None:
    filed, email = await filed_with_email(running)
    # A bounce as Postfix writes it: null sender, multipart/report, the original attached.
    original_headers = "".join(
        f"{name}: {value}\r\n"
        for name, value in email.items()
        if name in ("From", "To", "Subject", "Message-ID", "Date")
    )
    dsn = (
        "From: MAILER-DAEMON@mx.lawfirm.example (Mail Delivery System)\r\n"
        f"To: gateway@{REPLY_DOMAIN}\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\n"
        f"Date: {format_datetime(datetime.now(UTC))}\r\n"
        "Message-ID: <dsn-1@mx.lawfirm.example>\r\n"
        "Auto-Submitted: auto-replied\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="BOUNDARY"\r\n'
        "\r\n"
        "--BOUNDARY\r\nContent-Type: text/plain\r\n\r\n"
        "This is the mail system at host mx.lawfirm.example.\r\nThe mailbox is full.\r\n"
        "--BOUNDARY\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.lawfirm.example\r\n\r\n"
        f"Final-Recipient: rfc822; {LAWYER}\r\nAction: failed\r\nStatus: 5.2.2\r\n"
        "--BOUNDARY\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"{original_headers}"
        "--BOUNDARY--\r\n"
    )
    async with aiosmtplib.SMTP(hostname="127.0.0.1", port=running.smtp_port) as client:
        await client.sendmail("", [f"gateway@{REPLY_DOMAIN}"], dsn.encode())
    assert await wait_outcomes(running, 1) == ["bounce"]
    thread = await running.status(filed)
    bounced = [t for t in thread["turns"] if t["kind"] == "email_bounced"]
    assert bounced and LAWYER in bounced[0]["body"]
    assert not thread["human_has_replied"]


async def test_reply_from_the_wrong_sender_is_held_not_recorded(running: Running) -> None:
    filed, email = await filed_with_email(running)
    await send(
        reply_to(
            email, "APPROVED", sender="assistant@lawfirm.example", display_name="Dana Counsel"
        ),
        running.smtp_port,
    )
    assert await wait_outcomes(running, 1) == ["unverified_sender"]
    thread = await running.status(filed)
    assert human_turns(thread) == [] and thread["status"] == "recorded"
    await asyncio.sleep(0.3)
    # No receipt to a stranger: only a notice that says nothing of the thread; the
    # lawyer's own address is asked whether to record it.
    [_request_email, *sent] = running.sink.messages()
    [notice] = [m for m in sent if m["X-HFA-Kind"] != "sender_challenge"]
    assert notice["To"] == "assistant@lawfirm.example"
    assert notice["Subject"] == "Your email was not recorded"
    assert [m["To"] for m in sent if m["X-HFA-Kind"] == "sender_challenge"] == [LAWYER]


async def test_receipt_tells_the_lawyer_what_was_recorded(running: Running) -> None:
    filed, email = await filed_with_email(running)
    await send(
        reply_to(email, "QUESTION: which version of the agreement is this?"), running.smtp_port
    )
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
    assert human_turns(thread)[0]["kind"] == "question"
    assert thread["status"] == "reviewed"
    receipt = (await running.sink.wait_for(2))[1]
    assert receipt["To"] == LAWYER
    assert receipt["Auto-Submitted"] == "auto-replied"
    # The receipt answers the lawyer's own message and stays in the gateway's thread.
    reply_id = human_turns(thread)[0]["message_id"]
    assert receipt["In-Reply-To"] == reply_id
    assert str(receipt["References"]).split()[0] == email["Message-ID"]
    assert str(receipt["Subject"]).startswith("Recorded: your QUESTION: ")
    text = receipt.get_body(preferencelist=("plain",))
    assert text is not None
    content = text.get_content()
    assert (
        "You asked a QUESTION" in content and "which version of the agreement is this?" in content
    )
    assert filed["access_token"] not in receipt.as_string()


async def test_negated_approval_is_never_an_approval(running: Running) -> None:
    filed, email = await filed_with_email(running)
    await send(reply_to(email, "I cannot approve this as drafted."), running.smtp_port)
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
    turn = human_turns(thread)[0]
    assert turn["kind"] != "approval" and turn["decision"] != "approval"


async def test_decline_moves_the_request_to_declined(running: Running) -> None:
    filed, email = await filed_with_email(running)
    await send(reply_to(email, "Decline - this is outside my practice area."), running.smtp_port)
    thread = await running.wait_status(filed, lambda t: t["status"] == "declined")
    assert human_turns(thread)[0]["kind"] == "decline"


async def test_a_french_promise_to_answer_later_is_on_it_not_an_answer(running: Running) -> None:
    """ "Je regarde ça demain matin et je vous reviens." says the lawyer will answer later:
    the agent must not be told the request was answered."""
    filed, email = await filed_with_email(running)
    text = "Je regarde ça demain matin et je vous reviens."
    await send(reply_to(email, text), running.smtp_port)
    thread = await running.wait_status(filed, lambda t: t["status"] == "reviewed")
    turn = human_turns(thread)[0]
    assert (turn["kind"], turn["language"], turn["because"]) == ("acknowledgement", "fr", text)
    # The agent hears it is read, not answered, and keeps waiting for the answer.
    assert not thread["human_has_replied"]
    assert thread["notice"] == "A human has read it but has not answered yet."
    receipt = (await running.sink.wait_for(2))[1]
    plain = receipt.get_body(preferencelist=("plain",))
    assert plain is not None
    content = plain.get_content()
    # The receipt, in the lawyer's language, says what was recorded and why.
    assert "Vous avez dit I'M ON IT" in content and text in content


async def test_conflicting_decision_words_are_recorded_as_unclear(running: Running) -> None:
    filed, email = await filed_with_email(running)
    await send(reply_to(email, "Approved. Rejected. Call me first."), running.smtp_port)
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
    turn = human_turns(thread)[0]
    assert turn["kind"] == "reply" and turn["decision"] is None
    assert turn["decision_unclear"] is True
    assert thread["status"] == "reviewed"


async def test_attachments_are_kept_listed_and_never_read_for_decisions(running: Running) -> None:
    filed, email = await filed_with_email(running)
    msg = reply_to(email, "See my markup attached.")
    markup = b"%PDF-1.4 fake markup\n"
    msg.add_attachment(markup, maintype="application", subtype="pdf", filename="markup.pdf")
    msg.add_attachment("APPROVED\n", subtype="plain", filename="note.txt")
    await send(msg, running.smtp_port)
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
    turn = human_turns(thread)[0]
    assert turn["kind"] == "reply" and turn["decision"] is None
    assert turn["body"] == "See my markup attached."
    listed = {a["name"]: a for a in turn["attachments"]}
    assert set(listed) == {"markup.pdf", "note.txt"}
    import hashlib

    assert listed["markup.pdf"]["sha256"] == hashlib.sha256(markup).hexdigest()
    assert listed["markup.pdf"]["size"] == len(markup)
    assert listed["markup.pdf"]["type"] == "application/pdf"


async def test_attachments_over_the_count_limit_are_listed_and_noted(running: Running) -> None:
    from sqlalchemy import select

    from gateway.inbound.attachments import MAX_ATTACHMENTS
    from gateway.store.models import Attachment, InboundMessage

    filed, email = await filed_with_email(running)
    msg = reply_to(email, "Scans of every page attached.")
    for page in range(MAX_ATTACHMENTS + 2):
        msg.add_attachment(
            f"page {page}".encode(), maintype="image", subtype="png", filename=f"p{page}.png"
        )
    await send(msg, running.smtp_port)
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
    assert len(human_turns(thread)[0]["attachments"]) == MAX_ATTACHMENTS + 2
    with running.services.db.read_only() as session:
        stored = len(list(session.scalars(select(Attachment.id))))
        detail = session.scalars(select(InboundMessage.outcome_detail)).one()
    assert stored == MAX_ATTACHMENTS
    assert "2 attachment(s) over the limits" in (detail or "")
