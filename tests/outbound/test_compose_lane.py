"""The composing process: the emails it writes are the worker's own, and nothing is lost
when it ends, is killed or is idle."""

from __future__ import annotations

import asyncio
import email
import re
import time
from email import policy

import pytest
from sqlalchemy import select

from gateway.intake.filing import file_request
from gateway.outbound.compose import load_threads
from gateway.outbound.compose_lane import ComposeLane
from gateway.outbound.composer import Batch, compose_batch
from gateway.outbound.lawyer_mail import mail_settings
from gateway.services import Services
from gateway.store.models import OutboxItem

_BOUNDARY = re.compile(rb"=_hfa_[0-9a-f]{24}")


def _batch(services: Services, count: int) -> Batch:
    with services.db.transaction() as session:
        for n in range(count):
            file_request(
                services,
                session,
                {"category": "legal_review", "request": f"Read clause {n} — «urgent»."},
            )
    with services.db.read_only() as session:
        items = list(session.scalars(select(OutboxItem).order_by(OutboxItem.id)))
        threads = load_threads(session, items)
    config = services.config
    return Batch(
        config.mail_from,
        config.reply_domain,
        mail_settings(config.lawyer),
        [
            (i, threads[i.id], services.tokens.reply_address(threads[i.id].recipient.id, "x"))
            for i in items
        ],
    )


async def _ready(lane: ComposeLane) -> None:
    await lane.wanted()
    for _ in range(1200):
        if lane.ready:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the composing process never said hello")


async def test_the_process_writes_each_email_as_the_worker_would(services: Services) -> None:
    batch = _batch(services, 3)
    lane = ComposeLane()
    try:
        await _ready(lane)
        written = await lane.compose(batch)
    finally:
        await lane.close()
    here = compose_batch(services.renderer, batch)
    assert written is not None and len(written) == 3
    for theirs, ours in zip(written, here, strict=True):
        assert isinstance(theirs, bytes) and isinstance(ours, bytes)
        # Byte for byte, but for the random MIME boundary.
        assert _BOUNDARY.sub(b"B", theirs) == _BOUNDARY.sub(b"B", ours)
        parsed = email.message_from_bytes(theirs, policy=policy.default)
        body = parsed.get_body(("plain",))
        assert body is not None and "«urgent»" in body.get_content()
    assert lane.composed == 3


async def test_a_killed_process_leaves_the_emails_to_the_worker_and_is_started_again(
    services: Services,
) -> None:
    batch = _batch(services, 2)
    lane = ComposeLane()
    try:
        await _ready(lane)
        killed = lane.process
        assert killed is not None
        killed.kill()
        await asyncio.to_thread(killed.wait, 10)
        # Asked before or after it was seen to end: no answer, never a hang.
        assert await asyncio.wait_for(lane.compose(batch), 10) is None
        assert not lane.ready
        lane._next_start = 0.0  # the restart pause, which keeps a broken one from looping
        await _ready(lane)
        written = await lane.compose(batch)
        assert written is not None, "the new process answered"
        assert all(isinstance(w, bytes) for w in written), written
    finally:
        await lane.close()


async def test_a_process_started_while_the_last_one_is_being_forgotten_is_kept(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker goes on while a killed process is waited for: a new one started then
    is not forgotten when the wait for the old one ends."""
    batch = _batch(services, 2)
    lane = ComposeLane()
    try:
        await _ready(lane)
        killed = lane.process
        assert killed is not None
        killed.kill()
        # Reaped with the loop held, unlike the test above: the lane must not see the end
        # before its wait is made slow below, or the race this test is about never runs.
        killed.wait(10)
        reaped = killed.wait

        def slow_wait(timeout: float | None = None) -> int:
            time.sleep(1.0)  # a loaded machine: the old process's end takes a while to see
            return reaped(timeout)

        monkeypatch.setattr(killed, "wait", slow_wait)
        for _ in range(200):
            if not lane.ready:
                break
            await asyncio.sleep(0.01)
        assert not lane.ready
        lane._next_start = 0.0
        await _ready(lane)
        await asyncio.sleep(1.5)  # the old process's wait is over
        assert lane.ready and lane.process is not None and lane.process is not killed
        written = await lane.compose(batch)
        assert written is not None and all(isinstance(w, bytes) for w in written)
    finally:
        await lane.close()


async def test_an_idle_process_ends_by_itself_and_a_batch_then_goes_to_the_worker(
    services: Services,
) -> None:
    batch = _batch(services, 1)
    lane = ComposeLane(idle_seconds=0.3)
    try:
        await _ready(lane)
        process = lane.process
        assert process is not None
        for _ in range(100):
            if process.poll() is not None and not lane.ready:
                break
            await asyncio.sleep(0.05)
        assert process.poll() == 0
        assert not lane.ready
        assert await lane.compose(batch) is None
    finally:
        await lane.close()


def test_an_email_that_cannot_be_written_is_named_not_dropped(services: Services) -> None:
    batch = _batch(services, 2)
    broken_item = batch.emails[0][0]
    broken_item.purpose = "no-such-kind"
    written = compose_batch(services.renderer, batch)
    assert isinstance(written[0], str) and "KeyError" in written[0]
    assert isinstance(written[1], bytes)
