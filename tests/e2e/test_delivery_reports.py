"""Delivery reports to the bounce address, over SMTP, read by their Action (RFC 3464)."""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

import aiosmtplib
import pytest
from sqlalchemy import select

from gateway.store.models import InboundMessage, OutboxItem
from tests.conftest import LAWYER, REPLY_DOMAIN, Running, wait_outcomes


def delivery_report(email: EmailMessage, action: str, status: str) -> bytes:
    """A report as Postfix writes it: null sender, multipart/report, the original's headers."""
    original = "".join(
        f"{name}: {value}\r\n"
        for name, value in email.items()
        if name in ("From", "To", "Subject", "Message-ID", "Date")
    )
    return (
        "From: MAILER-DAEMON@mx.lawfirm.example (Mail Delivery System)\r\n"
        f"To: gateway@{REPLY_DOMAIN}\r\n"
        f"Subject: Delivery Status Notification ({action})\r\n"
        f"Date: {format_datetime(datetime.now(UTC))}\r\n"
        f"Message-ID: <dsn-{action}@mx.lawfirm.example>\r\n"
        "Auto-Submitted: auto-replied\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n'
        "\r\n"
        "--B\r\nContent-Type: text/plain\r\n\r\nThis is the mail system at mx.lawfirm.example.\r\n"
        "--B\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.lawfirm.example\r\n\r\n"
        f"Final-Recipient: rfc822; {LAWYER}\r\nAction: {action}\r\nStatus: {status}\r\n"
        "--B\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"{original}"
        "--B--\r\n"
    ).encode()


async def request_email_state(running: Running, message_id: str) -> str:
    with running.services.db.read_only() as session:
        item = session.scalars(select(OutboxItem).where(OutboxItem.message_id == message_id)).one()
        return item.state


async def report_on_request(running: Running, action: str, status: str) -> dict[str, Any]:
    filed = await running.file(request="May we sign the Nordwind agreement?")
    [email] = await running.sink.wait_for(1)
    async with aiosmtplib.SMTP(hostname="127.0.0.1", port=running.smtp_port) as client:
        await client.sendmail(
            "", [f"gateway@{REPLY_DOMAIN}"], delivery_report(email, action, status)
        )
    await wait_outcomes(running, 1)
    thread = await running.status(filed)
    state = await request_email_state(running, str(email["Message-ID"]))
    return {"thread": thread, "state": state}


def system_kinds(thread: dict[str, Any]) -> list[str]:
    return [t["kind"] for t in thread["turns"] if t["author"] == "system"]


async def test_a_failed_action_marks_the_email_bounced(running: Running) -> None:
    seen = await report_on_request(running, "failed", "5.1.1")
    assert seen["state"] == "dead"
    assert "email_bounced" in system_kinds(seen["thread"])


async def test_a_delayed_action_tells_the_thread_and_the_email_stays_sent(running: Running) -> None:
    seen = await report_on_request(running, "delayed", "4.4.7")
    assert seen["state"] == "sent"
    kinds = system_kinds(seen["thread"])
    assert "email_bounced" not in kinds and "email_delayed" in kinds
    (delayed,) = [t for t in seen["thread"]["turns"] if t["kind"] == "email_delayed"]
    assert "still trying" in delayed["body"] and LAWYER in delayed["body"]
    assert seen["thread"]["status"] == "recorded"


@pytest.mark.parametrize("action", ["delivered", "relayed", "expanded"])
async def test_a_success_action_is_recorded_and_nothing_more(running: Running, action: str) -> None:
    seen = await report_on_request(running, action, "2.0.0")
    assert seen["state"] == "sent"
    assert system_kinds(seen["thread"]) == [], seen["thread"]["turns"]
    with running.services.db.read_only() as session:
        (row,) = session.scalars(select(InboundMessage)).all()
        assert row.outcome == "delivery_report" and action in (row.outcome_detail or "")
