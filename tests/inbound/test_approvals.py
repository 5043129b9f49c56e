"""Votes as the inbound worker counts them: steps asked in turn, time running out.

A gateway on real sockets with a controllable clock; the lawyers answer over SMTP.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from email.message import EmailMessage

from sqlalchemy import select

from gateway.clock import FrozenClock
from gateway.contract import iso
from gateway.settings.config import Config
from gateway.store.models import OutboxItem
from tests.conftest import Running, SmtpSink, stop_running
from tests.mailkit import reply_to, send
from tests.test_scheduler import START, clock, scan, start_clocked

__all__ = ["clock"]

COUNSEL, PARTNER, GC = "counsel@firm.test", "partner@firm.test", "gc@firm.test"


async def mail_to(running: Running, address: str, kind: str) -> EmailMessage:
    for _ in range(300):
        for message in running.sink.messages():
            if str(message["To"]) == address and message["X-HFA-Kind"] == kind:
                return message
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {kind} email to {address}")


def pushes(running: Running) -> list[OutboxItem]:
    with running.services.db.read_only() as session:
        return list(session.scalars(select(OutboxItem).where(OutboxItem.purpose == "push")))


async def test_a_later_step_is_asked_when_the_first_is_met_and_expires_on_its_own_time(
    config: Config, sink: SmtpSink, clock: FrozenClock
) -> None:
    running = await start_clocked(
        config,
        sink,
        clock,
        lawyers=f"{COUNSEL},{PARTNER}",
        policies=f"legal_review=any of {COUNSEL} then all of {PARTNER} within 1d",
    )
    try:
        filed = await running.file(reply_to="agent@agents.example")
        first = await mail_to(running, COUNSEL, "request")
        # The second step's approver is not asked before the first step is met.
        assert [m for m in sink.messages() if str(m["To"]) == PARTNER] == []
        await send(reply_to(first, "Approved.", sender=COUNSEL), running.smtp_port)
        await mail_to(running, PARTNER, "request")
        thread = await running.status(filed)
        policy = thread["turns"][0]["policy"]
        assert (policy["outcome"], policy["step"], policy["waiting_for"]) == (
            "pending",
            2,
            [PARTNER],
        )
        assert pushes(running) == []
        clock.advance(timedelta(hours=23))
        assert (await scan(running)).deadlines == 0
        clock.advance(timedelta(hours=2))
        assert (await scan(running)).deadlines == 1
        assert (await scan(running)).deadlines == 0
        thread = await running.status(filed)
        assert thread["status"] == "closed"
        assert thread["turns"][0]["policy"]["outcome"] == "expired"
        [ended] = [t for t in thread["turns"] if t["kind"] == "policy_outcome"]
        assert f"No answer from: {PARTNER}" in ended["body"]
        assert len(pushes(running)) == 1
    finally:
        await stop_running(running)


async def test_a_deadline_that_closes_names_who_has_not_answered(
    config: Config, sink: SmtpSink, clock: FrozenClock
) -> None:
    running = await start_clocked(
        config,
        sink,
        clock,
        lawyers=f"{COUNSEL},{PARTNER},{GC}",
        policies=f"legal_review=2 of {COUNSEL},{PARTNER},{GC}",
        deadline_closes="1",
    )
    try:
        filed = await running.file(deadline=iso(START + timedelta(hours=4)))
        email = await mail_to(running, PARTNER, "request")
        await send(reply_to(email, "Approved.", sender=PARTNER), running.smtp_port)
        await running.wait_status(filed, lambda t: t["turns"][0]["policy"]["approvals"])
        clock.advance(timedelta(hours=5))
        assert (await scan(running)).deadlines == 1
        thread = await running.status(filed)
        [passed] = [t for t in thread["turns"] if t["kind"] == "deadline_passed"]
        assert passed["not_answered"] == [COUNSEL, GC]
        assert f"No answer yet from: {COUNSEL}, {GC}." in passed["body"]
        assert thread["turns"][0]["policy"]["outcome"] == "expired"
        assert thread["status"] == "closed"
    finally:
        await stop_running(running)


async def test_reminders_and_escalation_go_on_for_those_who_have_not_voted(
    config: Config, sink: SmtpSink, clock: FrozenClock
) -> None:
    running = await start_clocked(
        config,
        sink,
        clock,
        lawyers=f"{COUNSEL},{PARTNER},{GC}",
        policies=f"legal_review=2 of {COUNSEL},{PARTNER},{GC}",
        escalation="*=head@firm.test",
    )
    try:
        filed = await running.file(urgency="blocking")
        email = await mail_to(running, COUNSEL, "request")
        await send(reply_to(email, "Approved.", sender=COUNSEL), running.smtp_port)
        await running.wait_status(filed, lambda t: t["turns"][0]["policy"]["approvals"])
        escalated = 0
        for _ in range(4):
            clock.advance(timedelta(hours=25))
            escalated += (await scan(running)).escalations
        assert escalated == 1
        thread = await running.status(filed)
        reminders = [t for t in thread["turns"] if t["kind"] == "reminder_sent"]
        assert reminders and all(t["to"] == [PARTNER, GC] for t in reminders)
        [escalation] = [t for t in thread["turns"] if t["kind"] == "escalated"]
        assert escalation["not_answered"] == [PARTNER, GC]
        mail = await mail_to(running, "head@firm.test", "escalation")
        text = " ".join(mail.get_body(preferencelist=("plain",)).get_content().split())  # type: ignore[union-attr]
        assert f"No answer yet from: {PARTNER}, {GC}." in text
        assert not [
            m for m in sink.messages() if m["To"] == COUNSEL and m["X-HFA-Kind"] == "reminder"
        ]
    finally:
        await stop_running(running)
