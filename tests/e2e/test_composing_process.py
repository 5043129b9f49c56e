"""A worker with a backlog writes its emails in the composing process: every email
reaches the relay once and whole."""

from __future__ import annotations

import asyncio

from sqlalchemy import select

from gateway.intake.filing import file_request
from gateway.settings.config import Config
from gateway.store.models import OutboxItem
from tests.conftest import SmtpSink, start_running, stop_running

BACKLOG = 12


def _file(running_services: object, count: int, tag: str) -> None:
    services = running_services
    with services.db.transaction() as session:  # type: ignore[attr-defined]
        for n in range(count):
            file_request(
                services,  # type: ignore[arg-type]
                session,
                {"category": "legal_review", "request": f"{tag} {n}: read clause 7 — «now»."},
            )


async def test_a_backlog_is_written_by_the_composing_process_and_sent_whole(
    config: Config, sink: SmtpSink
) -> None:
    running = await start_running(config, sink)
    try:
        lane = running.gateway.compose_lane
        assert lane is not None, "two cores or more: the worker has a composing process"
        _file(running.services, BACKLOG, "first")
        await sink.wait_for(BACKLOG, timeout=30)
        # The first large batch started the process; the next backlog is written there.
        for _ in range(600):
            if lane.ready:
                break
            await asyncio.sleep(0.05)
        assert lane.ready
        _file(running.services, BACKLOG, "second")
        await sink.wait_for(2 * BACKLOG, timeout=30)
        assert lane.composed >= BACKLOG
        with running.services.db.read_only() as session:
            queued = {m or "" for m in session.scalars(select(OutboxItem.message_id))}
        messages = sink.messages()
        # Each queued email reached the relay once, whole, whichever process wrote it.
        assert sorted(str(m["Message-ID"]) for m in messages) == sorted(queued)
        texts = [m.get_body(("plain",)).get_content() for m in messages]  # type: ignore[union-attr]
        assert sum("«now»" in t for t in texts) == 2 * BACKLOG
    finally:
        await stop_running(running)
