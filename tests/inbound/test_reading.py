"""The reading process: messages are parsed and understood beside the worker, not in it."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator

import pytest

from gateway.errors import Unparseable
from gateway.inbound import reading, reading_lane
from gateway.inbound.mailparse import ParsedMail
from gateway.inbound.reading import MailReader, parse_stored
from gateway.replies import DecisionKind, ReplyText
from gateway.replies.bounces import DeliveryReport
from tests.inbound.readkit import decided, reply


async def test_messages_are_read_in_another_process_with_their_decision() -> None:
    reader = MailReader()
    try:
        reads = reader.read_each({1: reply("Approved."), 2: reply("Rejected: not as drafted.")})
        first, second = await reads[1], await reads[2]
        assert isinstance(first, ParsedMail) and isinstance(second, ParsedMail)
        assert isinstance(first.reply, ReplyText) and first.reply.new_text == "Approved."
        # The decision is read there too, out of the worker's write transaction.
        assert decided(first) is DecisionKind.APPROVAL
        assert decided(second) is DecisionKind.REJECTION
        # The From address is read there with the strict parser, as the worker would.
        assert first.sender == ("counsel@lawfirm.example", "")
        assert reader.large.process is not None and reader.large.process.pid != os.getpid()
        # The bytes DKIM is verified over are the ones received, not sent back and forth.
        assert first.raw == reply("Approved.")
    finally:
        reader.close()
    assert reader.large.process is None


async def test_an_ordinary_reply_is_read_in_a_process_of_normal_priority(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Beside the worker, on the other core, not taking turns with its transactions."""
    reader = MailReader()

    def not_here(raw: bytes) -> Exception:
        raise AssertionError("read in the worker's process")

    # Not even the first, while its process starts: the worker would load the word tables.
    monkeypatch.setattr(reading, "parse_stored", not_here)
    try:
        small = reply("Approved.", padding=10)
        assert len(small) <= reading.IN_PROCESS_BYTES
        assert decided(await reader.read(1, small)) is DecisionKind.APPROVAL
        assert reader.quick.process is not None and reader.large.process is None
        read = await reader.read(2, reply("Rejected: not as drafted.", padding=10))
        assert decided(read) is DecisionKind.REJECTION
        assert isinstance(read, ParsedMail) and read.raw == reply(
            "Rejected: not as drafted.", padding=10
        )
        if hasattr(os, "SCHED_IDLE"):
            assert os.sched_getscheduler(reader.quick.process.pid) != os.SCHED_IDLE
    finally:
        reader.close()
    assert reader.quick.process is None


async def test_unreadable_bytes_come_back_as_unparseable() -> None:
    reader = MailReader()
    try:
        read = await reader.read(1, b"   \r\n" * 100_000)
        assert isinstance(read, Unparseable) and "empty" in str(read)
    finally:
        reader.close()


async def test_a_reply_is_read_in_the_worker_when_its_reading_process_cannot_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing is left unread because the process does not start: the reply is read in the
    worker's reading thread, and the next one too."""
    monkeypatch.setattr(sys, "executable", "/bin/false")
    reader = MailReader()
    try:
        assert decided(await reader.read(1, reply("Approved.", padding=10))) is (
            DecisionKind.APPROVAL
        )
        assert decided(await reader.read(2, reply("Declined.", padding=10))) is (
            DecisionKind.DECLINE
        )
        # Its exit was seen: it is not taken for a process still starting.
        assert reader.quick.process is None or reader.quick.process.poll() is not None
    finally:
        reader.close()


async def test_a_message_too_slow_to_read_is_given_up_and_the_next_one_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reader = MailReader()
    try:
        await reader.read(1, reply("Approved."))  # started, so the limit times the read only
        slow_process = reader.large.process
        monkeypatch.setattr(reading_lane, "READ_SECONDS", 0.02)
        slow = await reader.read(2, reply("Approved.", padding=300_000))
        assert isinstance(slow, Unparseable) and "not read within" in str(slow)
        # Its process was ended (a thread could not have been), and a new one reads on.
        assert slow_process is not None and slow_process.poll() is not None
        monkeypatch.setattr(reading_lane, "READ_SECONDS", 20.0)
        after = await reader.read(3, reply("Declined."))
        assert decided(after) is DecisionKind.DECLINE
    finally:
        reader.close()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux's")
async def test_the_reading_process_reads_only_on_cpu_the_listeners_leave_idle() -> None:
    reader = MailReader()
    try:
        assert isinstance(await reader.read(1, reply("Approved.")), ParsedMail)
        assert reader.large.process is not None
        assert os.sched_getscheduler(reader.large.process.pid) == os.SCHED_IDLE
        # The worker that started it keeps its own priority.
        assert os.sched_getscheduler(0) != os.SCHED_IDLE
    finally:
        reader.close()


@pytest.fixture
async def started(
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[tuple[MailReader, subprocess.Popen[bytes]]]:
    """A reader whose process has started, and which sends it even a small message (one
    that fits in the socket's buffer, so it is sent whole to a stopped process)."""
    reader = MailReader()
    try:
        await reader.read(1, reply("Approved."))
        assert reader.large.process is not None
        monkeypatch.setattr(reading, "IN_PROCESS_BYTES", 100)
        yield reader, reader.large.process
    finally:
        reader.close()


async def test_a_read_waiting_for_the_cpu_is_not_given_up(
    monkeypatch: pytest.MonkeyPatch, started: tuple[MailReader, subprocess.Popen[bytes]]
) -> None:
    """Its limit counts the CPU time the reading process spends, not the time it waits."""
    reader, process = started
    # Sent to a process that gets no CPU (stopped) for longer than the limit.
    monkeypatch.setattr(reading_lane, "READ_SECONDS", 0.3)
    process.send_signal(signal.SIGSTOP)
    resume = threading.Timer(1.0, process.send_signal, (signal.SIGCONT,))
    resume.start()
    try:
        read = await reader.read(2, reply("Declined.", padding=10))
    finally:
        resume.join()
    assert decided(read) is DecisionKind.DECLINE
    assert reader.large.process is process


async def test_a_read_that_gets_no_cpu_for_too_long_is_retried_not_called_unreadable(
    monkeypatch: pytest.MonkeyPatch, started: tuple[MailReader, subprocess.Popen[bytes]]
) -> None:
    """Waiting minutes for a core on a busy machine says nothing about the message: it is
    an error, retried like a crash, never Unparseable (whose sender is told so)."""
    reader, process = started
    monkeypatch.setattr(reading_lane, "READ_WALL_SECONDS", 0.5)
    process.send_signal(signal.SIGSTOP)
    try:
        waited = await reader.read(2, reply("Declined.", padding=10))
    finally:
        process.send_signal(signal.SIGCONT)
    assert isinstance(waited, RuntimeError) and not isinstance(waited, Unparseable)
    assert "got no CPU or is stuck" in str(waited)
    # The stopped process was replaced, and the retry is read.
    assert process.poll() is not None
    monkeypatch.setattr(reading_lane, "READ_WALL_SECONDS", 600.0)
    again = await reader.read(3, reply("Declined.", padding=10))
    assert decided(again) is DecisionKind.DECLINE


async def test_a_reading_process_that_died_is_replaced() -> None:
    reader = MailReader()
    try:
        await reader.read(1, reply("Approved."))
        assert reader.large.process is not None
        reader.large.process.kill()
        reader.large.process.wait()
        again = await reader.read(2, reply("Approved."))
        assert isinstance(again, ParsedMail)
    finally:
        reader.close()


def test_a_delivery_report_is_read_with_the_message_off_the_event_loop() -> None:
    raw = (
        b"From: MAILER-DAEMON@mx.example\r\nSubject: Delivery Status Notification (delay)\r\n"
        b"MIME-Version: 1.0\r\n"
        b'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n'
        b"--B\r\nContent-Type: text/plain\r\n\r\nStill trying.\r\n"
        b"--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example\r\n"
        b"\r\nFinal-Recipient: rfc822; a@x.example\r\nAction: delayed\r\nStatus: 4.4.7\r\n"
        b"--B\r\nContent-Type: text/rfc822-headers\r\n\r\nMessage-ID: <ours@reply.example>\r\n"
        b"--B--\r\n"
    )
    mail = parse_stored(raw)
    assert not isinstance(mail, Exception)
    assert isinstance(mail.report, DeliveryReport)
    assert mail.report.action_for("a@x.example") == "delayed"
    assert mail.report.message_ids == ["<ours@reply.example>"]
    # An ordinary reply is not read as a report.
    reply = parse_stored(b"From: a@x.example\r\nSubject: Re: x\r\n\r\nApproved.\r\n")
    assert not isinstance(reply, Exception) and reply.report is None


async def test_an_ordinary_reply_is_read_when_its_reading_process_was_killed() -> None:
    """kill -9 of the ordinary reading process loses nothing: the reply being read is
    retried like a crash, and the next ones are read (here, until a new process is up)."""
    reader = MailReader()
    small = reply("Approved.", padding=10)
    try:
        await reader.read(1, small)
        deadline = time.monotonic() + 60
        while not reader.quick.ready():
            assert time.monotonic() < deadline, "the reading process did not start"
            await asyncio.sleep(0.05)
        process = reader.quick.process
        assert process is not None
        process.send_signal(signal.SIGSTOP)
        reading_now = asyncio.ensure_future(reader.read(2, small))
        await asyncio.sleep(0.2)
        process.kill()
        died_reading = await reading_now
        assert isinstance(died_reading, RuntimeError) and "ended while reading" in str(died_reading)
        after = await reader.read(3, reply("Declined.", padding=10))
        assert decided(after) is DecisionKind.DECLINE
    finally:
        reader.close()
