"""The outbox worker with a recording transport: retries, backoff, dead letters, leases."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.policy import default as default_policy

import pytest
from sqlalchemy import select

from gateway.clock import FrozenClock
from gateway.errors import DeliveryError, PermanentDelivery, TransientDelivery
from gateway.intake.filing import file_request
from gateway.outbound.outbox import OutboxWorker, email_deliverer, enqueue
from gateway.services import Services, build_services
from gateway.settings.config import Config
from gateway.store.models import AuditEntry, OutboxItem, Request, Turn
from tests import auditkit


class RecordingTransport:
    """Fails as told, then records what it was asked to send."""

    def __init__(self, failures: list[DeliveryError]) -> None:
        self.failures = failures
        self.sent: list[bytes] = []
        self.attempts = 0

    async def send(self, message: bytes, sender: str, recipients: list[str]) -> str:
        self.attempts += 1
        if self.failures:
            raise self.failures.pop(0)
        self.sent.append(message)
        return "250 queued"


@pytest.fixture
def clocked(config: Config) -> Iterator[Services]:
    services = build_services(config, clock=FrozenClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC)))
    yield services
    services.close()


def file_one(services: Services) -> str:
    with services.db.transaction() as session:
        filed = file_request(services, session, {"category": "legal_review", "request": "Read it."})
    return str(filed.result["reference"])


def item(services: Services) -> OutboxItem:
    with services.db.read_only() as session:
        row = session.scalars(select(OutboxItem)).one()
        return row


def events(services: Services) -> list[str]:
    with services.db.read_only() as session:
        return list(session.scalars(select(AuditEntry.event).order_by(AuditEntry.seq)))


async def test_transient_failures_back_off_then_deliver_with_a_stable_message_id(
    clocked: Services,
) -> None:
    clock = clocked.clock
    assert isinstance(clock, FrozenClock)
    transport = RecordingTransport([TransientDelivery("421 busy"), TransientDelivery("421 busy")])
    worker = OutboxWorker(clocked, {"email": email_deliverer(transport)})
    file_one(clocked)
    message_id = item(clocked).message_id

    assert await worker.run_once() == 1
    first = item(clocked)
    assert first.state == "pending" and first.attempts == 1 and first.last_error == "421 busy"
    delay = first.next_attempt_at - clock.now()
    assert delay == timedelta(seconds=clocked.config.outbox_backoff_seconds)
    # Not due yet: nothing is attempted.
    assert await worker.run_once() == 0

    clock.advance(delay)
    await worker.run_once()
    second = item(clocked)
    assert second.next_attempt_at - clock.now() == 2 * delay  # doubled

    clock.advance(2 * delay)
    await worker.run_once()
    done = item(clocked)
    assert done.state == "sent" and done.attempts == 3 and transport.attempts == 3
    sent = message_from_bytes(transport.sent[0], policy=default_policy)
    assert sent["Message-ID"] == message_id
    assert events(clocked).count("email.deferred") == 2 and "email.sent" in events(clocked)


async def test_retry_after_is_honoured(clocked: Services) -> None:
    transport = RecordingTransport([TransientDelivery("429", retry_after=300.0)])
    worker = OutboxWorker(clocked, {"email": email_deliverer(transport)})
    file_one(clocked)
    await worker.run_once()
    row = item(clocked)
    assert row.next_attempt_at - clocked.clock.now() == timedelta(seconds=300)


async def test_permanent_failure_is_dead_at_once_and_told_to_the_thread(clocked: Services) -> None:
    transport = RecordingTransport([PermanentDelivery("550 5.1.1 no such user")])
    worker = OutboxWorker(clocked, {"email": email_deliverer(transport)})
    file_one(clocked)
    await worker.run_once()
    row = item(clocked)
    assert row.state == "dead" and row.attempts == 1
    from gateway.store.thread import load_turns

    with clocked.db.read_only() as session:
        turns = load_turns(session, row.request_id or 0)
    assert turns[-1].kind == "email_failed" and "550 5.1.1" in turns[-1].body
    assert "email.failed" in events(clocked)


async def test_email_is_retried_for_five_days_then_dead(clocked: Services) -> None:
    clock = clocked.clock
    assert isinstance(clock, FrozenClock)
    assert clocked.config.outbox_retry_seconds == 5 * 86400
    transport = RecordingTransport([TransientDelivery("timeout")] * 10)
    worker = OutboxWorker(clocked, {"email": email_deliverer(transport)})
    file_one(clocked)
    # One attempt a day: the old default (8 attempts, 5 s doubling) gave up after 11 minutes.
    for day in range(6):
        assert item(clocked).state == "pending", day
        await worker.run_once()
        clock.advance(timedelta(days=1))
    assert item(clocked).state == "dead" and transport.attempts == 6
    assert transport.sent == []


async def test_a_delayed_email_is_told_once_and_again_when_it_goes_out(
    clocked: Services,
) -> None:
    from gateway.store.thread import load_turns

    clock = clocked.clock
    assert isinstance(clock, FrozenClock)
    transport = RecordingTransport([TransientDelivery("relay unreachable")] * 4)
    worker = OutboxWorker(clocked, {"email": email_deliverer(transport)})
    file_one(clocked)
    for _ in range(5):
        await worker.run_once()
        clock.advance(timedelta(minutes=20))
    assert item(clocked).state == "sent"
    with clocked.db.read_only() as session:
        kinds = [t.kind for t in load_turns(session, item(clocked).request_id or 0)]
    assert kinds.count("email_delayed") == 1 and kinds.count("email_delivered") == 1
    assert kinds.index("email_delayed") < kinds.index("email_delivered")
    assert "email.delayed" in events(clocked)


async def test_a_crashed_delivery_is_picked_up_after_its_lease(clocked: Services) -> None:
    clock = clocked.clock
    assert isinstance(clock, FrozenClock)
    from gateway.outbound.outbox import claim_due

    file_one(clocked)
    with clocked.db.transaction() as session:
        claimed = claim_due(clocked, session, clock.now(), 10)
    assert len(claimed) == 1
    # The process that claimed it died. Another worker must not take it before the lease ends...
    transport = RecordingTransport([])
    worker = OutboxWorker(clocked, {"email": email_deliverer(transport)})
    assert await worker.run_once() == 0
    # ...and takes it afterwards.
    clock.advance(timedelta(minutes=5))
    assert await worker.run_once() == 1
    assert item(clocked).state == "sent" and len(transport.sent) == 1


async def test_a_fault_of_the_network_is_retried(clocked: Services) -> None:
    class Down:
        async def send(self, message: bytes, sender: str, recipients: list[str]) -> str:
            raise ConnectionResetError("reset")

    worker = OutboxWorker(clocked, {"email": email_deliverer(Down())})
    file_one(clocked)
    await worker.run_once()
    row = item(clocked)
    assert row.state == "pending" and row.last_error == "ConnectionResetError"


async def test_a_fault_of_the_gateway_is_dead_at_once_and_told(clocked: Services) -> None:
    # It would fail the same way on every attempt: dead now, not retried unseen for days.
    class Broken:
        async def send(self, message: bytes, sender: str, recipients: list[str]) -> str:
            raise IndexError("tuple index out of range")

    worker = OutboxWorker(clocked, {"email": email_deliverer(Broken())})
    file_one(clocked)
    await worker.run_once()
    row = item(clocked)
    assert row.state == "dead" and "IndexError" in (row.last_error or "")
    with clocked.db.read_only() as session:
        turns = session.scalars(select(Turn).where(Turn.kind == "email_failed")).all()
    assert len(turns) == 1


async def test_backoff_is_capped(clocked: Services) -> None:
    clock = clocked.clock
    assert isinstance(clock, FrozenClock)
    clocked.config = clocked.config.with_overrides(outbox_backoff_seconds="600")
    transport = RecordingTransport([TransientDelivery("busy")] * 10)
    worker = OutboxWorker(clocked, {"email": email_deliverer(transport)})
    # An older email waits on the relay and is due within the probe time: the one this
    # test follows is then not the probe, and waits its own backoff.
    file_one(clocked)
    file_one(clocked)
    for _ in range(5):
        attempted_at = clock.now()
        await worker.run_once()
        clock.advance(timedelta(hours=3))
        with clocked.db.transaction() as session:
            probe = session.scalars(select(OutboxItem).order_by(OutboxItem.id)).first()
            assert probe is not None
            probe.next_attempt_at = clock.now() + timedelta(seconds=30)
    # Uncapped, the fifth retry would wait 600 s * 2**4 = 160 minutes.
    with clocked.db.read_only() as session:
        row = session.scalars(select(OutboxItem).order_by(OutboxItem.id.desc())).first()
    assert row is not None
    assert row.state == "pending" and row.attempts == 5
    cap = clocked.config.outbox_max_backoff_seconds
    assert row.next_attempt_at - attempted_at == timedelta(seconds=cap)


def first_item(services: Services) -> OutboxItem:
    with services.db.read_only() as session:
        row = session.scalars(select(OutboxItem).order_by(OutboxItem.id)).first()
        assert row is not None
        return row


async def test_a_relay_that_answers_again_is_used_at_once_not_at_the_next_backoff(
    clocked: Services,
) -> None:
    clock = clocked.clock
    assert isinstance(clock, FrozenClock)
    clocked.config = clocked.config.with_overrides(
        outbox_backoff_seconds="600", outbox_max_backoff_seconds="1800"
    )
    # The three first tries and the probes fail; then the relay answers again.
    transport = RecordingTransport([TransientDelivery("421 relay unreachable")] * 1000)
    worker = OutboxWorker(clocked, {"email": email_deliverer(transport)})
    references = [file_one(clocked) for _ in range(3)]
    assert await worker.run_once() == 3
    clock.advance(timedelta(seconds=60))
    await worker.run_once()
    with clocked.db.read_only() as session:
        waits = sorted(
            (r.next_attempt_at - clock.now()).total_seconds()
            for r in session.scalars(select(OutboxItem))
        )
    # One of the waiting emails probes the relay within a minute (on PostgreSQL two may,
    # when their failures were recorded at once); the others back off.
    assert waits[0] <= 60 and waits[-1] > 60

    # The relay answers again: new mail goes out, and the waiting ones are released.
    transport.failures.clear()
    file_one(clocked)
    assert await worker.run_once() >= 1
    assert await worker.run_once() >= 1
    with clocked.db.read_only() as session:
        states = [r.state for r in session.scalars(select(OutboxItem))]
    assert states == ["sent"] * 4, states
    assert len(references) == 3


async def test_webhooks_retry_for_their_period_not_a_count(clocked: Services) -> None:
    clock = clocked.clock
    assert isinstance(clock, FrozenClock)
    calls: list[int] = []

    async def flaky_webhook(services: Services, item: OutboxItem) -> str:
        calls.append(item.attempts)
        raise TransientDelivery("503 Service Unavailable")

    worker = OutboxWorker(
        clocked, {"email": email_deliverer(RecordingTransport([])), "webhook": flaky_webhook}
    )
    with clocked.db.transaction() as session:
        session.add(
            OutboxItem(
                channel="webhook",
                purpose="push",
                target="https://agent.example/hook",
                payload={},
                state="pending",
                attempts=0,
                next_attempt_at=clock.now(),
                created_at=clock.now(),
            )
        )
    for _ in range(clocked.config.outbox_max_attempts + 3):
        await worker.run_once()
        clock.advance(timedelta(hours=2))
    with clocked.db.read_only() as session:
        hook = session.scalars(select(OutboxItem).where(OutboxItem.channel == "webhook")).one()
    assert hook.state == "pending"
    assert len(calls) == clocked.config.outbox_max_attempts + 3


async def test_a_failed_webhook_is_logged_without_its_query_secret(
    clocked: Services, caplog: pytest.LogCaptureFixture
) -> None:
    async def refuse(services: Services, item: OutboxItem) -> str:
        raise TransientDelivery("503 busy")

    reference = file_one(clocked)
    with clocked.db.transaction() as session:
        request = session.scalars(select(Request)).one()
        enqueue(
            clocked,
            session,
            channel="webhook",
            purpose="push",
            request_id=request.id,
            reference=reference,
            target="https://hooks.example/in?token=s3cr3t-receiver-token",
            message_id="msg_1",
            payload={},
            at=clocked.clock.now(),
        )
    worker = OutboxWorker(
        clocked, {"webhook": refuse, "email": email_deliverer(RecordingTransport([]))}
    )
    with caplog.at_level(logging.INFO):
        await worker.run_once()
    assert "hooks.example/in?..." in caplog.text
    assert "s3cr3t-receiver-token" not in caplog.text


def test_the_audit_shows_a_webhook_reply_to_without_its_query(clocked: Services) -> None:
    with clocked.db.transaction() as session:
        file_request(
            clocked,
            session,
            {
                "category": "legal_review",
                "request": "Read it.",
                "reply_to": "https://hooks.example/in?token=s3cr3t-receiver-token",
            },
        )
    with clocked.db.read_only() as session:
        [entry] = session.scalars(select(AuditEntry).where(AuditEntry.event == "request.recorded"))
    assert entry.details["reply_to"] == "https://hooks.example/in?..."
    mirror = auditkit.mirror_text(clocked)
    assert "request.recorded" in mirror and "s3cr3t-receiver-token" not in mirror
