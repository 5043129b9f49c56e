"""The outbox as a pipeline: deliveries in flight, batch reads, batch records, leases."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gateway.clock import FrozenClock
from gateway.errors import StorageError
from gateway.intake.filing import file_request
from gateway.outbound import outcomes
from gateway.outbound.compose import compose_from_thread, compose_lawyer_email, load_threads
from gateway.outbound.outbox import BATCH, OutboxWorker, email_deliverer
from gateway.services import Services, build_services
from gateway.settings.config import Config
from gateway.store.models import AuditEntry, OutboxItem
from tests import lawyer_mails


class Relay:
    """Accepts every message; the first one waits until ``gate`` is set, as a slow session."""

    def __init__(self, *, slow_first: bool = False) -> None:
        self.sent: list[bytes] = []
        self.gate = asyncio.Event()
        self.slow_first = slow_first
        self.waiting = 0

    async def send(self, message: bytes, sender: str, recipients: list[str]) -> str:
        if self.slow_first:
            self.slow_first = False
            self.waiting += 1
            await self.gate.wait()
        self.sent.append(message)
        return "250 OK"


def file_many(services: Services, count: int) -> None:
    with services.db.transaction() as session:
        for n in range(count):
            file_request(services, session, {"category": "legal_review", "request": f"Ask {n}."})


def states(services: Services) -> dict[str, int]:
    with services.db.read_only() as session:
        rows = session.execute(select(OutboxItem.state, func.count()).group_by(OutboxItem.state))
        return {state: count for state, count in rows}


def events(services: Services, name: str) -> list[dict[str, Any]]:
    with services.db.read_only() as session:
        query = select(AuditEntry).where(AuditEntry.event == name).order_by(AuditEntry.seq)
        return [dict(e.details) for e in session.scalars(query)]


async def wait_until(check: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_deliveries_go_on_while_one_relay_session_is_slow(services: Services) -> None:
    # More than one batch: the old worker waited for the slowest of a batch before the next.
    total = BATCH + 8
    file_many(services, total)
    relay = Relay(slow_first=True)
    worker = OutboxWorker(services, {"email": email_deliverer(relay)})
    stop = asyncio.Event()
    running = asyncio.create_task(worker.run_forever(stop))
    try:
        await wait_until(lambda: states(services).get("sent", 0) == total - 1)
        assert relay.waiting == 1 and states(services) == {"sent": total - 1, "pending": 1}
    finally:
        relay.gate.set()
        stop.set()
        await running
    # Stopping lets the slow delivery finish and be recorded.
    assert states(services) == {"sent": total}
    assert len(relay.sent) == total


async def test_deliveries_finishing_together_are_recorded_by_one_write(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[int] = []
    record = outcomes.record_successes

    def counted(services: Services, session: Session, delivered: Any) -> None:
        writes.append(len(delivered))
        record(services, session, delivered)

    monkeypatch.setattr("gateway.outbound.outbox.record_successes", counted)
    file_many(services, 10)
    worker = OutboxWorker(services, {"email": email_deliverer(Relay())})
    assert await worker.run_once() == 10
    assert writes == [10]
    sent = events(services, "email.sent")
    assert len(sent) == 10 and all(e["attempt"] == 1 and e["relay"] == "250 OK" for e in sent)
    assert states(services) == {"sent": 10}


@pytest.fixture
def clocked(config: Config) -> Iterator[Services]:
    services = build_services(config, clock=FrozenClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC)))
    yield services
    services.close()


async def test_a_success_not_recorded_is_sent_again_after_its_lease(
    clocked: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = clocked.clock
    assert isinstance(clock, FrozenClock)
    record = outcomes.record_successes
    failures = [StorageError("database error: OperationalError")] * 2

    def failing_once(services: Services, session: Session, delivered: Any) -> None:
        if failures:
            raise failures.pop()
        record(services, session, delivered)

    monkeypatch.setattr("gateway.outbound.outbox.record_successes", failing_once)
    file_many(clocked, 1)
    relay = Relay()
    worker = OutboxWorker(clocked, {"email": email_deliverer(relay)})
    with pytest.raises(StorageError):
        await worker.run_once()
    # The relay has it, the record does not: the row keeps its lease, then is sent again.
    assert len(relay.sent) == 1 and states(clocked) == {"pending": 1}
    assert await worker.run_once() == 0
    clock.advance(timedelta(seconds=clocked.config.lease_seconds + 1))
    assert await worker.run_once() == 1
    assert states(clocked) == {"sent": 1}
    first, second = (m.split(b"Message-ID: ")[1].split(b"\n")[0] for m in relay.sent)
    assert first == second
    assert [e["attempt"] for e in events(clocked, "email.sent")] == [2]


def test_a_batch_is_composed_as_each_email_alone(services: Services) -> None:
    # Every kind of email, for two requests, so the thread headers of later emails count.
    for _ in range(2):
        lawyer_mails.every_kind(services)
    with services.db.read_only() as session:
        items = list(session.scalars(select(OutboxItem).where(OutboxItem.channel == "email")))
        threads = load_threads(session, items)
        assert set(threads) == {i.id for i in items}
        for item in items:
            options: dict[str, Any] = {
                "renderer": services.renderer,
                "mail_from": "gw@hfa.example",
                "reply_address": "reply+x@hfa.example",
                "loop_marker": "hfa.example",
            }
            alone = compose_lawyer_email(session, item, **options)
            batched = compose_from_thread(item, threads[item.id], **options)
            assert batched.headers == alone.headers
            assert (batched.text, batched.html) == (alone.text, alone.html)
    # Every later email hangs under the request email sent before it.
    later = {i.id for i in items if i.purpose != "request"}
    assert later and {i for i, t in threads.items() if t.earlier} == later
