"""Hostile and unusual mail over a real SMTP socket: nothing lost, nothing stalls.

Each test is one case of the reliability audit (reviews/reliability-audit.md):
the gateway runs in-process on loopback ports, mail arrives over SMTP, and the
test reads what an agent or an operator would read (status, the inbound table).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import smtplib
import socket
import time
import uuid
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, parseaddr
from pathlib import Path
from typing import Any

import aiosmtplib
import pytest
from sqlalchemy import select

from gateway.store.models import AuditEntry, InboundMessage
from tests.budget import cpu_use
from tests.conftest import (
    LAWYER,
    REPLY_DOMAIN,
    Running,
    SmtpSink,
    make_config,
    start_running,
    stop_running,
)
from tests.mailkit import reply_to

BOUNCE = f"gateway@{REPLY_DOMAIN}"


async def filed_with_email(running: Running, **fields: Any) -> tuple[dict[str, Any], EmailMessage]:
    filed = await running.file(**fields)
    return filed, await running.sink.request_email(filed["reference"])


def address_of(email: EmailMessage) -> str:
    return parseaddr(str(email["Reply-To"]))[1]


def inbound_rows(running: Running) -> list[InboundMessage]:
    with running.services.db.read_only() as session:
        return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))


async def wait_done(running: Running, count: int, timeout: float = 20.0) -> list[InboundMessage]:
    deadline = time.monotonic() + timeout
    while True:
        rows = inbound_rows(running)
        if len(rows) >= count and all(r.state == "done" for r in rows):
            return rows
        if time.monotonic() > deadline:
            raise AssertionError(f"not processed: {[(r.id, r.state, r.outcome) for r in rows]}")
        await asyncio.sleep(0.05)


async def sendmail(running: Running, raw: bytes, rcpts: list[str], sender: str = LAWYER) -> None:
    async with aiosmtplib.SMTP(hostname="127.0.0.1", port=running.smtp_port, timeout=60) as c:
        await c.sendmail(sender, rcpts, raw)


def human_turns(thread: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in thread["turns"] if t["author"] == "human"]


def raw_reply(to: str, in_reply_to: str, body: str, *, message_id: str, extra: str = "") -> bytes:
    return (
        f"From: {LAWYER}\r\nTo: {to}\r\nSubject: Re: your request\r\n"
        f"Date: {format_datetime(datetime.now(UTC))}\r\nMessage-ID: {message_id}\r\n"
        f"In-Reply-To: {in_reply_to}\r\n{extra}MIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\n"
        f"{body}\r\n"
    ).encode("utf-8", "surrogateescape")


# -- review #1, case 16: deduplication per (request, Message-ID) ---------------------


async def test_one_message_to_two_reply_addresses_is_recorded_on_both(running: Running) -> None:
    a, email_a = await filed_with_email(running)
    b, email_b = await filed_with_email(running)
    message = reply_to(email_a, "Approved.", to=f"{address_of(email_a)}, {address_of(email_b)}")
    raw = message.as_bytes()
    rcpts = [address_of(email_a), address_of(email_b)]
    await sendmail(running, raw, rcpts)
    for filed in (a, b):
        thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
        assert [t["kind"] for t in human_turns(thread)] == ["approval"]
    # The sending MTA did not see the 250 and delivers the same bytes again: still once each.
    await sendmail(running, raw, rcpts)
    rows = await wait_done(running, 4)
    assert sorted(r.outcome or "" for r in rows) == [
        "duplicate",
        "duplicate",
        "recorded",
        "recorded",
    ]
    for filed in (a, b):
        assert len(human_turns(await running.status(filed))) == 1


async def test_a_message_id_seen_on_another_request_is_still_recorded(running: Running) -> None:
    a, email_a = await filed_with_email(running)
    b, email_b = await filed_with_email(running)
    shared = f"<{uuid.uuid4().hex}@lawfirm.example>"
    await sendmail(
        running, reply_to(email_a, "Approved.", message_id=shared).as_bytes(), [address_of(email_a)]
    )
    await sendmail(
        running, reply_to(email_b, "Rejected.", message_id=shared).as_bytes(), [address_of(email_b)]
    )
    thread_b = await running.wait_status(b, lambda t: t["human_has_replied"])
    assert [t["kind"] for t in human_turns(thread_b)] == ["rejection"]
    assert [t["kind"] for t in human_turns(await running.status(a))] == ["approval"]


# -- review #2, fuzz S3: what the database cannot store is escaped, the raw keeps it --


async def test_nul_in_message_id_and_headers_is_stored_and_recorded(running: Running) -> None:
    filed, email = await filed_with_email(running)
    to = address_of(email)
    raw = raw_reply(
        to,
        str(email["Message-ID"]),
        "Approved.\x00 with a NUL",
        message_id="<nul\x00id@lawfirm.example>",
        extra="X-Note: lone \udcff byte and \x00 NUL\r\nKeywords: \x00\r\n",
    )
    await sendmail(running, raw, [to])
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"], timeout=15)
    # What follows the approval names something the request does not (a "NUL"): the
    # approval is in doubt, so it is recorded with no decision, never as an approval.
    assert [t["kind"] for t in human_turns(thread)] == ["reply"]
    (row,) = await wait_done(running, 1)
    assert row.raw == raw  # the bytes as sent, NUL included
    assert row.message_id is not None and "\x00" not in row.message_id
    # A redelivery of the same bytes is still recognised as the same message.
    await sendmail(running, raw, [to])
    rows = await wait_done(running, 2)
    assert rows[1].outcome == "duplicate"


# -- review #3, fuzz S4: the answer above megabytes of quoted history ------------------


async def test_answer_above_megabytes_of_quoted_history_is_recorded(running: Running) -> None:
    filed, email = await filed_with_email(running)
    history = "".join(
        f"> line {i} of a long quoted thread, kept for the record\n" for i in range(110_000)
    )
    assert len(history) > 5_000_000
    message = reply_to(email, "Approved.")
    message.set_content("Approved.\n\nOn Mon, 30 Nov 2026, HFA wrote:\n" + history)
    await sendmail(running, message.as_bytes(), [address_of(email)])
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"], timeout=60)
    (turn,) = human_turns(thread)
    assert turn["kind"] == "approval"
    assert turn["body"].startswith("Approved.")
    (row,) = await wait_done(running, 1)
    assert row.outcome == "recorded" and "truncated" in (row.outcome_detail or "")


# -- review #4, case 23 / S1: bounded work per message, nothing stalls -----------------


def tiny_parts(to: str, in_reply_to: str, parts: int) -> bytes:
    return (
        f"From: {LAWYER}\r\nTo: {to}\r\nSubject: Re: request\r\nIn-Reply-To: {in_reply_to}\r\n"
        f"Message-ID: <{uuid.uuid4().hex}@lawfirm.example>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n"
        "Approved.\r\n" + "--b\r\n\r\nx\r\n" * parts + "--b--\r\n"
    ).encode()


async def test_many_tiny_parts_cost_bounded_time_and_stall_nothing(running: Running) -> None:
    filed, email = await filed_with_email(running)
    raw = tiny_parts(address_of(email), str(email["Message-ID"]), 100_000)

    def send_from_another_thread() -> None:
        with smtplib.SMTP("127.0.0.1", running.smtp_port, timeout=60) as client:
            client.sendmail(LAWYER, [address_of(email)], raw)

    # The test runs on the gateway's own event loop: the CPU time of this thread is all
    # the loop did meanwhile, the process's is what the whole gateway did (the worker's
    # threads included). Neither grows when other processes load the machine.
    with cpu_use() as used:
        await asyncio.get_running_loop().run_in_executor(None, send_from_another_thread)
        await wait_done(running, 1, timeout=120)
    (row,) = inbound_rows(running)
    assert row.processed_at is not None
    # Before: 16.5 s of worker time with the whole gateway blocked (audit, 100k parts).
    assert used.process < 8, used
    # Before: the loop did those 16.5 s itself, and /healthz waited for them; now it only
    # takes the message in, and the reading runs beside it.
    assert used.thread < 2, used
    # The answer at the top is kept, the rest is marked as not read.
    thread = await running.status(filed)
    # The parts' lines after the approval are noise, not conditions a lawyer typed: the
    # approval is in doubt and decides nothing (never an approval with noise as conditions).
    assert [t["kind"] for t in human_turns(thread)] == ["reply"]
    assert row.outcome == "recorded" and "truncated" in (row.outcome_detail or "")


async def test_deep_nesting_is_read_to_a_limit_and_the_answer_kept(running: Running) -> None:
    filed, email = await filed_with_email(running)
    depth = 5000
    head = "".join(
        f"Content-Type: multipart/mixed; boundary=n{i}\r\n\r\n--n{i}\r\n" for i in range(depth)
    )
    raw = (
        f"From: {LAWYER}\r\nTo: {address_of(email)}\r\nSubject: Re: x\r\n"
        f"In-Reply-To: {email['Message-ID']}\r\nMessage-ID: <{uuid.uuid4().hex}@l.example>\r\n"
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=top\r\n\r\n"
        "--top\r\nContent-Type: text/plain\r\n\r\nApproved.\r\n--top\r\n"
        + head
        + "deep\r\n--top--\r\n"
    ).encode()
    await sendmail(running, raw, [address_of(email)])
    (row,) = await wait_done(running, 1, timeout=30)
    assert row.outcome == "recorded", (row.outcome, row.outcome_detail)
    assert [t["kind"] for t in human_turns(await running.status(filed))] == ["approval"]


# -- review #5, case 27: bounded connections and timeouts ------------------------------


@pytest.fixture
async def tight(tmp_path: Path, sink: SmtpSink) -> Any:
    config = make_config(
        tmp_path,
        smtp_timeout_seconds="1.5",
        smtp_max_connections="20",
        smtp_max_connections_per_client="5",
    )
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


def greeting(sock: socket.socket) -> bytes:
    sock.settimeout(5)
    data = b""
    while not data.endswith(b"\r\n"):
        chunk = sock.recv(1000)
        if not chunk:
            break
        data += chunk
    return data


def whole_reply(sock: socket.socket) -> bytes:
    """One SMTP reply, all its lines (the last one has a space after the code)."""
    data = b""
    while not re.search(rb"(?:^|\r\n)\d{3} [^\r\n]*\r\n$", data):
        chunk = sock.recv(1000)
        if not chunk:
            break
        data += chunk
    return data


def data_after_dot(port: int, sender: str, recipient: str, data: bytes) -> bytes:
    """Over a raw socket (no client library rewrites the bytes): EHLO, MAIL, RCPT, DATA,
    then ``data`` as given; the server's answer to it, whether or not ``data`` ended."""
    with socket.create_connection(("127.0.0.1", port), 10) as sock:
        greeting(sock)
        for command in (
            b"EHLO x\r\n",
            f"MAIL FROM:<{sender}>\r\n".encode(),
            f"RCPT TO:<{recipient}>\r\n".encode(),
            b"DATA\r\n",
        ):
            sock.sendall(command)
            whole_reply(sock)
        sock.sendall(data)
        return whole_reply(sock)


async def test_connections_over_the_per_client_cap_get_421(tight: Running) -> None:
    loop = asyncio.get_running_loop()

    def flood() -> list[bytes]:
        socks = [socket.create_connection(("127.0.0.1", tight.smtp_port), 5) for _ in range(8)]
        try:
            return [greeting(s) for s in socks]
        finally:
            for s in socks:
                s.close()

    greetings = await loop.run_in_executor(None, flood)
    assert sum(g.startswith(b"220") for g in greetings) == 5
    assert sum(g.startswith(b"421") for g in greetings) == 3
    # Once they are gone, a real reply gets through.
    filed, email = await filed_with_email(tight)
    await sendmail(tight, reply_to(email, "Approved.").as_bytes(), [address_of(email)])
    await tight.wait_status(filed, lambda t: t["human_has_replied"])


async def test_idle_and_slow_connections_are_closed_with_421(tight: Running) -> None:
    """HFA_SMTP_TIMEOUT_SECONDS is 1.5: an idle client, and one that sends a byte every
    0.25 s (slow, never silent), are each told 421 and let go by the gateway. Each is
    given 10 s: a listener without these timeouts would keep both for good."""
    loop = asyncio.get_running_loop()

    def idle_then_slow() -> tuple[bytes, bytes, bytes]:
        with socket.create_connection(("127.0.0.1", tight.smtp_port), 10) as idle:
            assert greeting(idle).startswith(b"220")
            idle.settimeout(10)
            idle_said = idle.recv(1000)
            closed = idle.recv(1000) if idle_said else b"(nothing said)"
        with socket.create_connection(("127.0.0.1", tight.smtp_port), 10) as slow:
            greeting(slow)
            for command in (b"EHLO x\r\n", f"MAIL FROM:<{LAWYER}>\r\n".encode()):
                slow.sendall(command)
                whole_reply(slow)
            said = b""
            try:
                for _ in range(40):  # a byte every 0.25 s for 10 s at most
                    slow.sendall(b"R")
                    time.sleep(0.25)
                    slow.setblocking(False)
                    with contextlib.suppress(BlockingIOError):
                        said += slow.recv(1000)
                    slow.setblocking(True)
                    if said:
                        break
            except OSError:
                pass
        return idle_said, closed, said

    idle_said, idle_closed, slow_said = await loop.run_in_executor(None, idle_then_slow)
    assert idle_said.startswith(b"421") and idle_closed == b"", (idle_said, idle_closed)
    assert slow_said.startswith(b"421"), slow_said


async def test_more_than_100_recipients_get_452(running: Running) -> None:
    _filed, email = await filed_with_email(running)
    async with aiosmtplib.SMTP(hostname="127.0.0.1", port=running.smtp_port, timeout=20) as c:
        await c.ehlo()
        await c.mail(LAWYER)
        codes = [
            (await c.execute_command(f"RCPT TO:<{address_of(email)}>".encode())).code
            for _ in range(101)
        ]
    assert codes[:100] == [250] * 100
    assert codes[100] == 452


async def test_a_line_over_1000_octets_is_stored(running: Running) -> None:
    filed, email = await filed_with_email(running)
    long_line = "<p>" + "x" * 100_000 + "</p>"
    raw = raw_reply(
        address_of(email),
        str(email["Message-ID"]),
        # The decision stands in a paragraph of its own; the long line is what is tested.
        "Approved.\r\n\r\n" + long_line,
        message_id=f"<{uuid.uuid4().hex}@l.example>",
    )
    await sendmail(running, raw, [address_of(email)])
    thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
    # The long paragraph after the approval is read as the lawyer wrote it: something
    # added to the approval, so a condition, never dropped.
    [turn] = human_turns(thread)
    assert turn["kind"] == "conditional_approval" and turn["conditions"][0].startswith("<p>xxx")
    (row,) = inbound_rows(running)
    assert long_line.encode() in row.raw


async def test_a_line_over_the_stored_limit_is_refused_clearly_and_audited(
    running: Running,
) -> None:
    _filed, email = await filed_with_email(running)
    raw = raw_reply(
        address_of(email),
        str(email["Message-ID"]),
        "Approved.\r\n" + "y" * 1_100_000,
        message_id=f"<{uuid.uuid4().hex}@l.example>",
    )
    with pytest.raises(aiosmtplib.SMTPResponseException) as info:
        await sendmail(running, raw, [address_of(email)])
    assert info.value.code == 552 and "line" in info.value.message.lower()
    with running.services.db.read_only() as session:
        events = list(session.scalars(select(AuditEntry.event)))
    assert "inbound.refused" in events


async def test_a_message_with_bare_lf_line_ends_is_refused_saying_so(running: Running) -> None:
    # What a script writing bytes with LF alone sends: no CRLF, so one line of megabytes.
    _filed, email = await filed_with_email(running)
    body = (
        f"From: {LAWYER}\nTo: {address_of(email)}\nSubject: Re: x\n\nApproved.\n"
        + "scan line\n" * 150_000
    ).encode()

    def send_bare_lf() -> bytes:
        return data_after_dot(running.smtp_port, LAWYER, address_of(email), body + b"\r\n.\r\n")

    said = await asyncio.get_running_loop().run_in_executor(None, send_bare_lf)
    assert said.startswith(b"552") and b"CR LF" in said and b"bare LF" in said, said
    assert inbound_rows(running) == []
    with running.services.db.read_only() as session:
        assert "inbound.refused" in list(session.scalars(select(AuditEntry.event)))


# -- review #7 and #12, A2/A7: the bounce address ------------------------------------


async def test_bounce_address_refuses_a_human_reply_and_records_no_turn(running: Running) -> None:
    filed, email = await filed_with_email(running)
    raw = raw_reply(
        BOUNCE,
        str(email["Message-ID"]),
        "Approved.",
        message_id=f"<{uuid.uuid4().hex}@lawfirm.example>",
    )
    with pytest.raises(aiosmtplib.SMTPResponseException) as info:
        await sendmail(running, raw, [BOUNCE])
    assert info.value.code == 550 and "Reply-To" in info.value.message
    await asyncio.sleep(0.3)
    thread = await running.status(filed)
    assert human_turns(thread) == [] and thread["status"] == "recorded"


async def test_bounce_address_keeps_no_stranger_mail(running: Running) -> None:
    junk = raw_reply(
        BOUNCE, "<nothing@evil.test>", "x" * 1000, message_id=f"<{uuid.uuid4().hex}@evil.test>"
    )
    with pytest.raises(aiosmtplib.SMTPResponseException):
        await sendmail(running, junk, [BOUNCE], sender="stranger@evil.test")

    # A large message to it is refused once past 1 MB, without reading the rest.
    def send_two_megabytes() -> bytes:
        # Answered before the final dot was ever sent.
        data = b"Auto-Submitted: auto-replied\r\n\r\n" + b"z\r\n" * 700_000
        return data_after_dot(running.smtp_port, "", BOUNCE, data)

    said = await asyncio.get_running_loop().run_in_executor(None, send_two_megabytes)
    assert said.startswith(b"552"), said
    assert inbound_rows(running) == []


async def test_a_message_of_millions_of_lines_is_refused_while_it_arrives(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gateway.inbound import protocol

    # The limit is 1,000,000 lines; a smaller one keeps the test short.
    monkeypatch.setattr(protocol, "MAX_DATA_LINES", 20_000)
    _filed, email = await filed_with_email(running)

    def send_many_lines() -> bytes:
        # DATA is read a megabyte at a time (or to each dot line): 2 MB of short lines
        # are far past the limit and are refused well before the final dot.
        data = b"Subject: x\r\n\r\nApproved.\r\n" + b"--b\r\n" * 400_000
        return data_after_dot(running.smtp_port, LAWYER, address_of(email), data)

    said = await asyncio.get_running_loop().run_in_executor(None, send_many_lines)
    assert said.startswith(b"552") and b"lines" in said, said
    assert inbound_rows(running) == []
