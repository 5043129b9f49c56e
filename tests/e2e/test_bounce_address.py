"""The bounce address over SMTP: what it takes is decided in the session, what it stores
is bounded (only reports about an email we sent are kept whole, within a daily budget)."""

from __future__ import annotations

import email
import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime

import aiosmtplib
import pytest
from sqlalchemy import select

from gateway.inbound import bounce_policy, mailparse
from gateway.settings.config import Config
from gateway.store.models import AuditEntry, InboundMessage
from tests.conftest import (
    LAWYER,
    REPLY_DOMAIN,
    Running,
    SmtpSink,
    start_running,
    stop_running,
    wait_outcomes,
)

BOUNCE = f"gateway@{REPLY_DOMAIN}"
FILLER = ("x" * 76 + "\r\n") * 2600  # about 200 KB


def automatic(in_reply_to: str, n: int) -> bytes:
    """An automatic message citing ``in_reply_to``, as junk at the bounce address looks."""
    return (
        f"From: MAILER-DAEMON@junk.example\r\nTo: {BOUNCE}\r\nSubject: Undeliverable\r\n"
        f"Date: {format_datetime(datetime.now(UTC))}\r\nMessage-ID: <junk{n}@junk.example>\r\n"
        f"Auto-Submitted: auto-replied\r\nIn-Reply-To: {in_reply_to}\r\n\r\n{FILLER}"
    ).encode()


def failure_report(email: EmailMessage) -> bytes:
    return (
        f"From: MAILER-DAEMON@mx.lawfirm.example\r\nTo: {BOUNCE}\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: <dsn@mx.lawfirm.example>\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n'
        "--B\r\nContent-Type: text/plain\r\n\r\nThe mailbox is full.\r\n"
        "--B\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.lawfirm.example\r\n\r\n"
        f"Final-Recipient: rfc822; {LAWYER}\r\nAction: failed\r\nStatus: 5.2.2\r\n"
        f"--B\r\nContent-Type: text/rfc822-headers\r\n\r\nMessage-ID: {email['Message-ID']}\r\n"
        f"--B\r\nContent-Type: text/plain\r\n\r\n{FILLER}--B--\r\n"
    ).encode()


async def to_bounce_address(running: Running, raw: bytes) -> None:
    async with aiosmtplib.SMTP(hostname="127.0.0.1", port=running.smtp_port, timeout=60) as c:
        await c.sendmail("", [BOUNCE], raw)


def rows(running: Running) -> list[InboundMessage]:
    with running.services.db.read_only() as session:
        return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))


def audited(running: Running, event: str) -> list[AuditEntry]:
    with running.services.db.read_only() as session:
        return list(session.scalars(select(AuditEntry).where(AuditEntry.event == event)))


async def test_only_reports_about_an_email_we_sent_are_kept_whole(running: Running) -> None:
    await running.file(request="Is clause 7 acceptable?")
    [email] = await running.sink.wait_for(1)
    # Made-up Message-IDs in our domain: taken in the session (250), not kept whole.
    made_up = [f"<anything{n}@{REPLY_DOMAIN}>" for n in range(4)]
    for n, cited in enumerate(made_up):
        await to_bounce_address(running, automatic(cited, n))
    real = failure_report(email)
    await to_bounce_address(running, real)
    await wait_outcomes(running, 5, timeout=30)
    *junk, report = rows(running)
    for row in junk:
        assert len(row.raw) < 4096 and row.size > 200_000, (row.outcome, row.outcome_detail)
        assert b"Message-ID: <junk" in row.raw and b"body dropped" in row.raw
    assert report.raw == real and report.outcome == "bounce"
    dropped = audited(running, "inbound.bounce_dropped")
    assert sorted(e.details["inbound_id"] for e in dropped) == [row.id for row in junk]


@pytest.fixture
async def small_budget(
    config: Config, sink: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Running]:
    monkeypatch.setattr(bounce_policy, "BOUNCE_DAILY_BYTES", 500_000)
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


async def test_past_the_daily_budget_only_the_head_is_stored(small_budget: Running) -> None:
    running = small_budget
    for n in range(4):
        await to_bounce_address(running, automatic(f"<made-up{n}@{REPLY_DOMAIN}>", n))
    stored = rows(running)
    # About 200 KB each: two fit in the 500 KB budget, the next two keep their first 64 KB.
    assert [row.size > 200_000 for row in stored] == [True, True, False, False]
    assert all(row.size <= bounce_policy.BOUNCE_HEAD_BYTES for row in stored[2:])
    over = audited(running, "inbound.bounce_over_budget")
    assert sorted(e.details["inbound_id"] for e in over) == [row.id for row in stored[2:]]


async def test_a_persons_mail_is_refused_in_the_session(running: Running) -> None:
    person = (
        f"From: someone@else.example\r\nTo: {BOUNCE}\r\nSubject: Hello\r\n"
        "Message-ID: <p@else.example>\r\n\r\nIs anyone there?\r\n"
    ).encode()
    async with aiosmtplib.SMTP(hostname="127.0.0.1", port=running.smtp_port) as c:
        with pytest.raises(aiosmtplib.SMTPDataError) as refused:
            await c.sendmail("someone@else.example", [BOUNCE], person)
    assert refused.value.code == 550 and "Reply-To" in refused.value.message
    assert rows(running) == []


async def test_nothing_is_parsed_whole_on_the_event_loop(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a whole message (its MIME parts, which Message-IDs a report cites) is the
    worker's, off the loop that serves SMTP and HTTP: counted here by the thread that
    builds a message object from the bytes."""
    loop_thread = threading.current_thread()
    on_loop: list[int] = []
    whole_message = email.message_from_bytes
    read_by_worker = getattr(mailparse, "message_from_bytes")  # noqa: B009 (not exported)

    def watched(parse: object) -> object:
        def wrapper(raw: bytes, *args: object, **kwargs: object) -> object:
            if threading.current_thread() is loop_thread:
                on_loop.append(len(raw))
            return parse(raw, *args, **kwargs)  # type: ignore[operator]

        return wrapper

    monkeypatch.setattr(email, "message_from_bytes", watched(whole_message))
    monkeypatch.setattr(mailparse, "message_from_bytes", watched(read_by_worker))
    await running.file(request="Is clause 7 acceptable?")
    [sent] = await running.sink.wait_for(1)
    many_parts = (
        f"From: MAILER-DAEMON@junk.example\r\nTo: {BOUNCE}\r\nSubject: Undeliverable\r\n"
        f"Auto-Submitted: auto-replied\r\nIn-Reply-To: <made-up@{REPLY_DOMAIN}>\r\n"
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
        + "--b\r\n\r\nx\r\n" * 20_000
        + "--b--\r\n"
    ).encode()
    await to_bounce_address(running, many_parts)
    await to_bounce_address(running, failure_report(sent))
    outcomes = await wait_outcomes(running, 2, timeout=30)
    assert outcomes == ["bounce", "bounce"]
    assert on_loop == []
