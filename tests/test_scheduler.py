"""Reminders, escalation and deadlines, driven by a controllable clock over real sockets."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from sqlalchemy import select

from gateway import scheduler
from gateway.app import Gateway
from gateway.clock import FrozenClock
from gateway.contract import iso
from gateway.intake.filing import file_request
from gateway.outbound import push
from gateway.services import Services, build_services
from gateway.settings.config import Config
from gateway.store.models import AuditEntry, Recipient, Request, Turn
from tests.conftest import LAWYER, Running, SmtpSink, gateway_client, stop_running
from tests.mailkit import reply_to, send

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
GC = "gc@lawfirm.example"


async def start_clocked(
    config: Config, sink: SmtpSink, clock: FrozenClock, **overrides: str
) -> Running:
    settings = {"smtp_relay": f"127.0.0.1:{sink.port}", "scheduler_seconds": "3600"}
    config = config.with_overrides(**(settings | overrides))
    services = build_services(config, clock=clock)
    gateway = Gateway(services)
    await gateway.start()
    return Running(gateway, services, sink, gateway_client(gateway))


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(START)


@pytest.fixture
async def clocked(config: Config, sink: SmtpSink, clock: FrozenClock) -> AsyncIterator[Running]:
    running = await start_clocked(config, sink, clock)
    yield running
    await stop_running(running)


async def scan(running: Running) -> scheduler.Ran:
    ran = await running.services.db.run(scheduler.run_due, running.services)
    running.services.outbox_ready.set()
    return ran


def events(services: Services, name: str) -> list[AuditEntry]:
    with services.db.read_only() as session:
        return list(session.scalars(select(AuditEntry).where(AuditEntry.event == name)))


def body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    text: str = part.get_content()
    return text


async def test_blocking_requests_are_reminded_every_two_hours_in_the_same_thread(
    clocked: Running, clock: FrozenClock
) -> None:
    filed = await clocked.file(urgency="blocking")
    [original] = await clocked.sink.wait_for(1)

    clock.advance(timedelta(hours=1, minutes=59))
    assert (await scan(clocked)).reminders == 0
    clock.advance(timedelta(minutes=2))
    assert (await scan(clocked)).reminders == 1
    reminder = (await clocked.sink.wait_for(2))[1]
    assert reminder["To"] == LAWYER
    assert reminder["In-Reply-To"] == original["Message-ID"]
    assert reminder["Reply-To"] == original["Reply-To"]
    assert str(reminder["Subject"]).startswith("Reminder 1: ")
    assert str(reminder["Subject"]).endswith(f"[{filed['reference']}]")
    assert "REMINDER 1" in body(reminder) and "Please review clause 7." in body(reminder)

    thread = await clocked.status(filed)
    assert thread["status"] == "recorded"
    [turn] = [t for t in thread["turns"] if t["kind"] == "reminder_sent"]
    assert turn["author"] == "system" and turn["to"] == [LAWYER] and turn["reminder"] == 1
    [entry] = events(clocked.services, "request.reminder_sent")
    assert entry.reference == filed["reference"] and entry.details["reminder"] == 1

    assert (await scan(clocked)).reminders == 0  # not again within the interval
    clock.advance(timedelta(hours=2))
    assert (await scan(clocked)).reminders == 1
    await clocked.sink.wait_for(3)

    # Once the lawyer answers, the reminders stop.
    await send(reply_to(original, "Fine as drafted."), clocked.smtp_port)
    await clocked.wait_status(filed, lambda t: t["human_has_replied"])
    clock.advance(timedelta(hours=6))
    assert (await scan(clocked)).reminders == 0
    assert len(events(clocked.services, "request.reminder_sent")) == 2


async def test_soon_is_reminded_daily_and_routine_never(
    clocked: Running, clock: FrozenClock
) -> None:
    soon = await clocked.file(urgency="soon")
    await clocked.file(urgency="routine")
    clock.advance(timedelta(hours=23))
    assert (await scan(clocked)).reminders == 0
    clock.advance(timedelta(hours=1))
    assert (await scan(clocked)).reminders == 1
    clock.advance(timedelta(days=10))
    # One reminder per scan, however long the gateway was down: no burst of catch-up mail.
    assert (await scan(clocked)).reminders == 1
    reminded = {e.reference for e in events(clocked.services, "request.reminder_sent")}
    assert reminded == {soon["reference"]}


async def test_escalation_after_unanswered_reminders_and_the_escalation_contact_can_answer(
    config: Config, sink: SmtpSink, clock: FrozenClock
) -> None:
    running = await start_clocked(
        config, sink, clock, escalation=f"legal_review={GC}", escalate_after="1"
    )
    try:
        filed = await running.file(urgency="blocking")
        await sink.wait_for(1)
        clock.advance(timedelta(hours=2))
        ran = await scan(running)
        assert (ran.reminders, ran.escalations) == (1, 0)
        clock.advance(timedelta(hours=2))
        ran = await scan(running)
        assert (ran.reminders, ran.escalations) == (1, 1)
        messages = await sink.wait_for(4)
        to_gc = [m for m in messages if m["To"] == GC]
        assert len(to_gc) == 1  # the escalation, not also a reminder
        escalation = to_gc[0]
        assert "ESCALATED" in body(escalation) and LAWYER in body(escalation)
        assert "Please review clause 7." in body(escalation)
        assert str(escalation["Subject"]).startswith("Escalated to you: ")
        # Counsel is told the request went to the GC in the reminder that goes with it:
        # one email, not a reminder and a notice in the same second.
        assert [m for m in messages if m["X-HFA-Kind"] == "escalated_notice"] == []
        second = [m for m in messages if m["To"] == LAWYER and m["X-HFA-Kind"] == "reminder"]
        assert len(second) == 2 and f"also sent to {GC}" in " ".join(body(second[1]).split())

        with running.services.db.read_only() as session:
            roles = {
                r.address: r.role
                for r in session.scalars(select(Recipient).where(Recipient.request_id == 1))
            }
        assert roles == {LAWYER: "lawyer", GC: "escalation"}
        [entry] = events(running.services, "request.escalated")
        assert entry.details == {"to": [GC], "after_reminders": 1}

        # Later scans do not escalate again; reminders now reach the escalation contact too,
        # each after twice the wait of the one before.
        clock.advance(timedelta(hours=2))
        assert (await scan(running)).reminders == 0
        clock.advance(timedelta(hours=2))
        ran = await scan(running)
        assert (ran.reminders, ran.escalations) == (1, 0)
        await sink.wait_for(6)

        await send(reply_to(escalation, "APPROVE. Go ahead.", sender=GC), running.smtp_port)
        thread = await running.wait_status(filed, lambda t: t["human_has_replied"])
        [human] = [t for t in thread["turns"] if t["author"] == "human"]
        assert human["from"] == GC and human["role"] == "escalation"
        assert human["kind"] == "approval" and thread["status"] == "answered"
        kinds = [t["kind"] for t in thread["turns"] if t["author"] == "system"]
        assert "escalated" in kinds
        # Counsel hears that the GC answered, and what; the GC gets the receipt.
        messages = await sink.wait_for(8)
        [other] = [m for m in messages if m["X-HFA-Kind"] == "answered_by_other"]
        assert other["To"] == LAWYER and GC in body(other) and "APPROVAL" in body(other)
        assert str(other["Subject"]).startswith("Decided: APPROVED: ")
        [receipt] = [m for m in messages if m["X-HFA-Kind"] == "receipt"]
        assert receipt["To"] == GC
    finally:
        await stop_running(running)


async def test_a_passed_deadline_is_noted_once_and_pushed_but_the_request_stays_open(
    clocked: Running, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    pushed: list[str] = []
    real = push.enqueue_for_turn

    def record(services: Services, session: Any, request: Request, turn: Turn) -> None:
        pushed.append(turn.kind)
        real(services, session, request, turn)

    monkeypatch.setattr(push, "enqueue_for_turn", record)
    filed = await clocked.file(deadline=iso(START + timedelta(hours=1)))
    await clocked.file(deadline="when you can")  # free text: kept, never scheduled
    clock.advance(timedelta(minutes=59))
    assert (await scan(clocked)).deadlines == 0
    clock.advance(timedelta(minutes=2))
    assert (await scan(clocked)).deadlines == 1
    assert (await scan(clocked)).deadlines == 0
    thread = await clocked.status(filed)
    [turn] = [t for t in thread["turns"] if t["kind"] == "deadline_passed"]
    assert turn["author"] == "system" and "stays open" in turn["body"]
    assert thread["status"] == "recorded"
    assert pushed == ["deadline_passed"]
    [entry] = events(clocked.services, "request.deadline_passed")
    assert entry.reference == filed["reference"] and entry.details["closes"] is False


async def test_a_deadline_can_be_configured_to_close_the_request(
    config: Config, sink: SmtpSink, clock: FrozenClock
) -> None:
    running = await start_clocked(config, sink, clock, deadline_closes="1")
    try:
        filed = await running.file(deadline="2026-11-30")  # a date: the end of that day, UTC
        clock.advance(timedelta(hours=14, minutes=59))
        assert (await scan(running)).deadlines == 0
        clock.advance(timedelta(minutes=2))
        assert (await scan(running)).deadlines == 1
        thread = await running.status(filed)
        assert thread["status"] == "closed"
        assert [t["kind"] for t in thread["turns"][-2:]] == ["deadline_passed", "status_changed"]
        [entry] = events(running.services, "request.status_changed")
        assert entry.details["to"] == "closed"
    finally:
        await stop_running(running)


def _file(services: Services, urgency: str) -> None:
    with services.db.transaction() as session:
        file_request(
            services, session, {"category": "legal_review", "request": "x", "urgency": urgency}
        )


def test_schedules_run_once_across_processes_and_survive_a_restart(
    config: Config, clock: FrozenClock
) -> None:
    first = build_services(config, clock=clock)
    second = build_services(config, clock=clock)  # another gateway process, same database
    try:
        for _ in range(3):
            _file(first, "blocking")
        clock.advance(timedelta(hours=2))
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(scheduler.run_due, [first, second, first, second]))
        assert sum(r.reminders for r in results) == 3  # each request reminded exactly once
        assert len(events(first, "request.reminder_sent")) == 3
        # The scan itself is claimed once per interval through the schedules table.
        claims = [scheduler.claim_scan(s, clock.now()) for s in (first, second, first)]
        assert claims == [True, False, False]
    finally:
        first.close()
        second.close()
    restarted = build_services(config, clock=clock)
    try:
        assert scheduler.run_due(restarted).reminders == 0  # the state was kept
        clock.advance(timedelta(hours=2))
        assert scheduler.run_due(restarted).reminders == 3
    finally:
        restarted.close()


async def test_the_scheduler_loop_of_a_running_gateway_sends_reminders(
    config: Config, sink: SmtpSink, clock: FrozenClock
) -> None:
    running = await start_clocked(config, sink, clock, scheduler_seconds="0.05")
    try:
        await running.file(urgency="blocking")
        await sink.wait_for(1)
        clock.advance(timedelta(hours=2, minutes=1))
        messages = await sink.wait_for(2, timeout=10)
        assert "REMINDER 1" in body(messages[1])
        await asyncio.sleep(0.3)  # further loop passes within the interval send nothing more
        assert len(sink.received) == 2
    finally:
        await stop_running(running)


async def test_reminders_back_off_stop_at_the_cap_and_say_when_the_deadline_passed(
    config: Config, sink: SmtpSink, clock: FrozenClock
) -> None:
    running = await start_clocked(config, sink, clock, reminder_cap="3")
    try:
        await running.file(urgency="blocking", deadline=iso(START + timedelta(hours=3)))
        await sink.wait_for(1)
        sent_at = []
        for _ in range(40):  # 20 hours in half-hour steps
            clock.advance(timedelta(minutes=30))
            if (await scan(running)).reminders:
                sent_at.append(clock.now() - START)
        # 2 h, then 2 h later, then 4 h later; then no more: the cap is 3.
        assert sent_at == [timedelta(hours=2), timedelta(hours=4), timedelta(hours=8)]
        messages = await sink.wait_for(5)
        reminders = [m for m in messages if m["X-HFA-Kind"] == "reminder"]
        assert [str(m["Subject"]).split(":")[0] for m in reminders] == [
            "Reminder 1",
            "Reminder 2",
            "Reminder 3",
        ]
        # Overdue is said by the tag; the prefix's own "(overdue)" gave way to the ask.
        assert ["OVERDUE" in str(m["Subject"]) for m in reminders] == [False, True, True]
        assert all("“Please review clause" in str(m["Subject"]) for m in reminders)
        overdue = " ".join(body(reminders[1]).split())
        assert "The deadline passed: " in overdue and "(1 hour ago)" in overdue, overdue
        assert "last reminder" in body(reminders[2]) and "last reminder" not in body(reminders[1])
        [notice] = [m for m in messages if m["X-HFA-Kind"] == "deadline_passed"]
        assert notice["To"] == LAWYER
        assert str(notice["Subject"]).startswith("Deadline passed: ")
        assert "still open" in body(notice) or "stays open" in body(notice)
    finally:
        await stop_running(running)


async def test_im_on_it_marks_the_request_reviewed_and_pauses_reminders(
    clocked: Running, clock: FrozenClock
) -> None:
    filed = await clocked.file(urgency="blocking")
    [original] = await clocked.sink.wait_for(1)
    await send(reply_to(original, "I'm on it, answer by tomorrow."), clocked.smtp_port)
    thread = await clocked.wait_status(filed, lambda t: t["status"] == "reviewed")
    assert thread["human_has_replied"] is False  # read, not answered
    [human] = [t for t in thread["turns"] if t["author"] == "human"]
    assert human["kind"] == "acknowledgement"
    clock.advance(timedelta(hours=23))
    assert (await scan(clocked)).reminders == 0
    clock.advance(timedelta(hours=2))
    assert (await scan(clocked)).reminders == 1  # the pause is over; still no answer


PARTNER = "partner@lawfirm.example"


async def test_nobody_is_reminded_while_an_answer_waits_out_its_window_nor_after_it(
    config: Config, sink: SmtpSink, clock: FrozenClock
) -> None:
    """2 of 3: counsel's typed approval is held for its window; no reminder goes to
    anyone meanwhile, and afterwards only to those whose vote is still awaited."""
    running = await start_clocked(
        config,
        sink,
        clock,
        lawyers=f"{LAWYER},{PARTNER},{GC}",
        policies=f"*=2 of {LAWYER},{PARTNER},{GC} veto",
        correction_window="3h",
    )
    try:
        filed = await running.file(urgency="blocking")
        first = await sink.wait_for(3)
        asked = next(m for m in first if m["To"] == LAWYER)
        clock.advance(timedelta(hours=1))
        await send(reply_to(asked, "Approved."), running.smtp_port)
        thread = await running.wait_status(
            filed, lambda t: "pending_decision" in [x["kind"] for x in t["turns"]]
        )
        # The reminder falls due (2 h) inside the window: the whole request pauses.
        clock.advance(timedelta(hours=1, minutes=30))
        assert (await scan(running)).reminders == 0
        # The window ends; the vote counts; the reminder goes to those still awaited.
        clock.advance(timedelta(hours=2))
        thread = await running.wait_status(
            filed, lambda t: len(t["turns"][0]["policy"]["approvals"]) == 1
        )
        assert (await scan(running)).reminders == 1
        turns = (await running.status(filed))["turns"]
        [turn] = [t for t in turns if t["kind"] == "reminder_sent"]
        assert LAWYER not in turn["body"] and PARTNER in turn["body"] and GC in turn["body"]
        # Three requests, counsel's receipt, two reminders.
        await sink.wait_for(6)
        kinds = [(str(m["To"]), m["X-HFA-Kind"]) for m in sink.messages()]
        assert (LAWYER, "reminder") not in kinds
        assert (PARTNER, "reminder") in kinds and (GC, "reminder") in kinds
        assert thread["status"] == "reviewed"
    finally:
        await stop_running(running)


async def test_a_lawyer_whose_reply_is_in_but_not_yet_read_is_not_reminded(
    config: Config, sink: SmtpSink, clock: FrozenClock
) -> None:
    """The reply was received (answered 250) and waits for a worker to read it: to the
    lawyer, the request is answered, and a reminder would cross it. Another request
    nobody answered is reminded in the same scan."""
    settings = {"smtp_relay": f"127.0.0.1:{sink.port}", "scheduler_seconds": "3600"}
    services = build_services(config.with_overrides(**settings), clock=clock)
    # Listeners only: what the listener stores stays unread.
    gateway = Gateway(services, roles=("http", "smtp"))
    await gateway.start()
    running = Running(gateway, services, sink, gateway_client(gateway))
    try:
        answered = await running.file(urgency="blocking")
        await running.file(urgency="blocking")
        with services.db.read_only() as session:
            # The first filed: its lawyer is the first recipient on record.
            recipient = session.scalars(select(Recipient).order_by(Recipient.id)).first()
        assert recipient is not None
        reply = EmailMessage()
        reply["From"], reply["Subject"] = LAWYER, "Re: clause 7"
        reply["To"] = services.tokens.reply_address(recipient.id, config.reply_domain)
        reply["Message-ID"] = "<answer-1@lawfirm.example>"
        reply.set_content("Fine as drafted.\n")
        assert gateway.smtp_port is not None
        await send(reply, gateway.smtp_port)
        clock.advance(timedelta(hours=2, minutes=1))
        assert (await scan(running)).reminders == 1
        [entry] = events(services, "request.reminder_sent")
        assert entry.reference != answered["reference"]
    finally:
        await stop_running(running)
