"""The composition root's own work: what a process does beside its roles."""

from __future__ import annotations

import asyncio
import threading

from sqlalchemy import select

from gateway.app import Gateway
from gateway.services import Services
from gateway.store.models import Heartbeat


async def test_a_heartbeat_waiting_for_the_write_lock_leaves_the_loop_serving(
    services: Services,
) -> None:
    gateway = Gateway(services, roles=())
    gateway._register()
    with services.db.read_only() as session:
        registered = session.scalar(
            select(Heartbeat.seen_at).where(Heartbeat.process == gateway._process)
        )
    lock = services.db._writer_lock
    if lock is None:
        # PostgreSQL: every write runs in a thread already.
        await gateway.beat_once()
        return
    taken, let_go = threading.Event(), threading.Event()

    def another_writer() -> None:
        with lock.held():
            taken.set()
            let_go.wait(10)

    writer = threading.Thread(target=another_writer)
    writer.start()
    taken.wait(5)
    try:
        beat = asyncio.create_task(gateway.beat_once())
        # The loop goes on while the beat waits for the lock. A beat that waited on the
        # loop would hold it until the other writer gives up (10 s) and be done by the
        # time this sleep ends.
        await asyncio.sleep(0.05)
        assert not beat.done()
    finally:
        let_go.set()
    await asyncio.wait_for(beat, 5)
    writer.join()
    with services.db.read_only() as session:
        seen = session.scalar(
            select(Heartbeat.seen_at).where(Heartbeat.process == gateway._process)
        )
    assert seen is not None and registered is not None and seen >= registered
