"""A reply with no new text is no answer, end to end over SMTP with a controlled clock.

A lawyer who sends back only thanks and their signature has not answered a
BLOCKING request: it stays open, its reminders and escalation go on, and the
other lawyer is never told to stand down.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from gateway.clock import FrozenClock
from gateway.settings.config import Config
from tests.conftest import LAWYER, SECOND_LAWYER, Running, SmtpSink, stop_running, wait_outcomes
from tests.mailkit import reply_to, send
from tests.test_scheduler import GC, START, body, scan, start_clocked


@pytest.fixture
async def two_lawyers(config: Config, sink: SmtpSink) -> AsyncIterator[tuple[Running, FrozenClock]]:
    clock = FrozenClock(START)
    running = await start_clocked(
        config, sink, clock, lawyers=f"{LAWYER},{SECOND_LAWYER}", escalation=f"*={GC}"
    )
    yield running, clock
    await stop_running(running)


async def test_a_signature_only_reply_keeps_a_blocking_request_open_and_reminded(
    two_lawyers: tuple[Running, FrozenClock],
) -> None:
    running, clock = two_lawyers
    filed = await running.file(urgency="blocking", request="May we sign the ACME NDA today?")
    mails = await running.sink.wait_for(2)
    original = next(m for m in mails if m["To"] == LAWYER)

    clock.advance(timedelta(hours=2))
    assert (await scan(running)).reminders == 1
    await running.sink.wait_for(4)

    reply = reply_to(original, "", signature="Dana Counsel\nPartner, Example LLP")
    await send(reply, running.smtp_port)
    assert await wait_outcomes(running, 1) == ["recorded"]
    thread = await running.status(filed)
    assert thread["status"] == "recorded"
    assert thread["human_has_replied"] is False
    [turn] = [t for t in thread["turns"] if t["author"] == "human"]
    assert turn["kind"] == "no_answer" and turn["decision"] is None
    # The lawyer's receipt says nothing was taken as an answer.
    receipt = (await running.sink.wait_for(5))[4]
    assert receipt["To"] == LAWYER
    assert "no new text of yours" in " ".join(body(receipt).split())

    # The reminders go on, and after two unanswered ones the request escalates.
    clock.advance(timedelta(hours=2))
    assert (await scan(running)).reminders == 1
    clock.advance(timedelta(hours=4))
    ran = await scan(running)
    assert ran.reminders == 1 and ran.escalations == 1
    # Reminders and the GC's escalation; the lawyers hear of the escalation in the
    # reminder that goes with it, not in a notice of the same second.
    messages = await running.sink.wait_for(5 + 2 + 2 + 1)
    assert any(m["To"] == GC for m in messages)
    assert not [m for m in messages if m["X-HFA-Kind"] == "escalated_notice"]
    # Nobody was told to stand down.
    for message in messages:
        assert not str(message["Subject"]).startswith("Answered by another lawyer")
        assert "You do not need to answer" not in body(message)
    assert (await running.status(filed))["status"] == "recorded"
