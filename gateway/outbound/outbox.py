"""The durable outbox: at-least-once delivery of emails (and, by channel, webhooks).

A row is claimed with a lease (renewed while it is delivered), delivered,
then marked sent. A transient failure schedules a retry with capped
exponential backoff, for a period (gateway.outbound.retry); a permanent one,
or the end of the period, makes the row ``dead``: visible to ops (``hfa
outbox list --failed``), audited, and told to the thread as a system turn. A
process that dies mid-delivery leaves a lease that expires within
HFA_LEASE_SECONDS, and another worker picks the row up again with the same
Message-ID.

The worker keeps up to BATCH deliveries in flight: as some finish it claims
more, so one slow relay session holds back only its own message, never the
batch around it. Claims and the outcomes of deliveries that finish together
go through the database's group commit, sharing its commits.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol, runtime_checkable

from sqlalchemy.orm import Session

from gateway.errors import DeliveryError, PermanentDelivery, StorageError
from gateway.outbound import hold_log
from gateway.outbound.lawyer_mail import EmailDeliverer as EmailDeliverer
from gateway.outbound.lawyer_mail import email_deliverer as email_deliverer
from gateway.outbound.outcomes import Delivered, record_failure, record_successes
from gateway.outbound.retry import failure_of
from gateway.outbound.targets import shown_target as shown_target
from gateway.outbound.targets import without_url_secrets as without_url_secrets
from gateway.runner import Runner, first_of, paused_after_failure
from gateway.services import Services
from gateway.store.models import OutboxItem, Recipient, Request
from gateway.store.prepared import connection_of, prepared_insert
from gateway.store.queue import claim, kept_leased, kept_leases

log = logging.getLogger(__name__)

# Deliveries in flight at once, and the most claimed in one go: twice the connections
# the relay is sent over (transports.RELAY_CONNECTIONS), so that while it takes some
# messages the next are claimed, composed and held, and no connection waits for them.
BATCH = 64
# The worker claims again once this many of its BATCH deliveries have finished: often
# enough that the relay is never left idle, seldom enough that claims stay batched.
REFILL = BATCH // 4
# Sent, not yet recorded: past this many the worker claims nothing until the database
# has caught up.
UNRECORDED = 4 * BATCH

_INSERT_ITEM = prepared_insert(
    OutboxItem,
    (
        "channel",
        "purpose",
        "request_id",
        "recipient_id",
        "target",
        "message_id",
        "payload",
        "state",
        "attempts",
        "next_attempt_at",
        "created_at",
    ),
)

# A deliverer sends one claimed item and returns what the other side said.
Deliverer = Callable[[Services, OutboxItem], Awaitable[str]]


@runtime_checkable
class Prepares(Protocol):
    """A deliverer that reads what a whole claimed batch needs at once, before sending."""

    def prepare(self, services: Services, items: Sequence[OutboxItem]) -> None: ...


def enqueue(
    services: Services,
    session: Session,
    *,
    channel: str,
    purpose: str,
    request_id: int | None,
    reference: str | None,
    target: str,
    message_id: str,
    payload: dict[str, Any],
    at: datetime,
    recipient_id: int | None = None,
) -> int:
    """Queue a delivery in the caller's transaction, audited as CHANNEL.queued; its row id.

    This is the one way anything is queued for delivery. The row is inserted by a
    prepared statement, not an ORM object: filing a request queues one per lawyer on
    the hottest write path, where SQLAlchemy's execution cost more than the insert.
    """
    item_id = _INSERT_ITEM.insert_id(
        connection_of(session),
        {
            "channel": channel,
            "purpose": purpose,
            "request_id": request_id,
            "recipient_id": recipient_id,
            "target": target,
            "message_id": message_id,
            "payload": payload,
            "state": "pending",
            "attempts": 0,
            "next_attempt_at": at,
            "created_at": at,
        },
    )
    services.audit.append(
        session,
        f"{channel}.queued",
        at=at,
        reference=reference,
        details={"outbox_id": item_id, "purpose": purpose, "to": shown_target(target)},
    )
    # Wakes this process's worker; other processes find the row on their next poll.
    services.outbox_ready.set()
    return item_id


def enqueue_lawyer_email(
    services: Services,
    session: Session,
    request: Request,
    recipient: Recipient,
    *,
    purpose: str,
    at: datetime,
    payload: dict[str, Any] | None = None,
) -> int:
    """Queue an email to one of the thread's humans, with that recipient's stable Message-ID."""
    return enqueue(
        services,
        session,
        channel="email",
        purpose=purpose,
        request_id=request.id,
        reference=request.reference,
        recipient_id=recipient.id,
        target=recipient.address,
        message_id=services.tokens.message_id(recipient.id, services.config.reply_domain),
        payload=payload or {},
        at=at,
    )


def claim_due(services: Services, session: Session, now: datetime, limit: int) -> list[OutboxItem]:
    """Lease the deliveries that are due, oldest due first."""
    return claim(
        session,
        OutboxItem,
        now=now,
        lease=timedelta(seconds=services.config.lease_seconds),
        limit=limit,
        skip_locked=not services.db.is_sqlite,
        due_column="next_attempt_at",
    )


class OutboxWorker:
    """Claims due items and hands each to the deliverer of its channel."""

    def __init__(self, services: Services, deliverers: dict[str, Deliverer]) -> None:
        self.services = services
        self.deliverers = deliverers
        # Successes not yet written, each with the future that is done once it is.
        self._delivered: list[tuple[OutboxItem, str, asyncio.Future[None]]] = []
        self._recorder: asyncio.Task[None] | None = None

    async def run_once(self) -> int:
        """Deliver one batch of what is due now, all of it; how many items were attempted."""
        services = self.services
        items = await self._claim(BATCH)
        if items:
            lease = timedelta(seconds=services.config.lease_seconds)
            ids = [i.id for i in items]
            async with kept_leased(services.db, services.clock.now, OutboxItem, ids, lease):
                await asyncio.gather(*(self._deliver(item) for item in items))
        return len(items)

    async def _claim(self, limit: int) -> list[OutboxItem]:
        services = self.services

        def claim(session: Session) -> list[OutboxItem]:
            return claim_due(services, session, services.clock.now(), limit)

        # One statement: on SQLite in the group commit (it shares a commit with the
        # outcomes being written); on PostgreSQL it commits as it ends.
        items = await services.db.write_statement(claim)
        for channel in {i.channel for i in items}:
            deliverer = self.deliverers.get(channel)
            if isinstance(deliverer, Prepares):
                mine = [i for i in items if i.channel == channel]
                try:
                    await services.db.run(deliverer.prepare, services, mine)
                except Exception:
                    # Each delivery then reads what it needs itself.
                    log.warning(
                        "outbox: could not prepare %s %s items", len(mine), channel, exc_info=True
                    )
        return items

    async def _deliver(self, item: OutboxItem) -> None:
        recorded = await self._attempt(item)
        if recorded is not None:
            await recorded

    async def _attempt(self, item: OutboxItem) -> asyncio.Future[None] | None:
        """Deliver ``item``. A failure is recorded before this returns (None); a success
        is queued for the next write, and the future returned is done once it is."""
        services = self.services
        deliverer = self.deliverers.get(item.channel)
        # Its note of holds keeps the item until its outcome is written (hold_log).
        holds = hold_log.for_process(services.config.data_dir)
        try:
            if deliverer is None:
                raise PermanentDelivery(f"no deliverer for channel {item.channel!r}")
            detail = await deliverer(services, item)
        except Exception as exc:
            failure = exc if isinstance(exc, DeliveryError) else failure_of(exc)
            if isinstance(exc, DeliveryError):
                target, said = shown_target(item.target), without_url_secrets(exc.detail)
                log.warning("outbox %s to %s: %s", item.id, target, said)
            else:
                log.exception("outbox %s: unexpected error", item.id)
            recording = partial(record_failure, services, item_id=item.id, error=failure)
            try:
                await services.db.write(recording)
            finally:
                holds.done(item.id)
            return None
        future = asyncio.get_running_loop().create_future()
        future.add_done_callback(partial(holds.settled, item.id))
        self._delivered.append((item, detail, future))
        if self._recorder is None or self._recorder.done():
            self._recorder = asyncio.create_task(self._record_successes())
        return future

    async def _record_successes(self) -> None:
        """Write the successes queued meanwhile, many per write, until none is left."""
        waiting: list[tuple[OutboxItem, str, asyncio.Future[None]]] = []
        try:
            while self._delivered:
                # One turn of the loop lets the deliveries finishing now join this write.
                await asyncio.sleep(0)
                waiting, self._delivered = self._delivered, []
                outcomes = await self._write_successes([(i, d) for i, d, _f in waiting])
                for (_item, _detail, future), outcome in zip(waiting, outcomes, strict=True):
                    if future.done():
                        continue
                    if outcome is not None:
                        future.set_exception(outcome)
                    else:
                        future.set_result(None)
        except BaseException as exc:
            # Cancelled (at shutdown) or worse: no delivery is left waiting on its record;
            # the rows keep their leases and are delivered again.
            for _item, _detail, future in [*waiting, *self._delivered]:
                if not future.done():
                    future.set_exception(StorageError(f"not recorded: {type(exc).__name__}"))
            self._delivered = []
            raise

    async def _write_successes(self, delivered: list[Delivered]) -> list[BaseException | None]:
        services = self.services
        try:
            await services.db.write(partial(record_successes, services, delivered=delivered))
        except Exception:
            # One entry that cannot be written must not hold back the others'.
            outcomes = await asyncio.gather(
                *(
                    services.db.write(partial(record_successes, services, delivered=[one]))
                    for one in delivered
                ),
                return_exceptions=True,
            )
            return [o if isinstance(o, BaseException) else None for o in outcomes]
        return [None] * len(delivered)

    async def run_forever(self, stop: asyncio.Event) -> None:
        """Keep up to BATCH deliveries in flight until ``stop``, then let them finish."""
        services = self.services
        lease = timedelta(seconds=services.config.lease_seconds)
        # The emails a stopped process held: released first, or tried again until they are.
        async with (
            hold_log.holds_released(services, stop),
            kept_leases(services.db, services.clock.now, OutboxItem, lease) as held,
        ):
            await _Pipeline(self, held).deliver(stop)


class _Pipeline(Runner):
    """The deliveries of a running worker: up to BATCH sending, more claimed as they end.

    A delivery leaves its slot once the relay answered; its lease is held until its
    outcome is written, so a success not yet recorded is delivered again after a crash.
    """

    def __init__(self, worker: OutboxWorker, held: set[int]) -> None:
        poll = worker.services.config.worker_poll_seconds
        failure = "outbox worker iteration failed; retrying"
        super().__init__(failure, poll, failure_pause=paused_after_failure(poll), logger=log)
        self.worker, self.held, self.ready = worker, held, worker.services.outbox_ready
        # An idle iteration waits for one of its own wake-ups, a free slot or new work; the
        # runner has none, so nothing but stop cuts short the pause after a failure.
        self.snooze_on: asyncio.Event = self.ready
        self.sending: set[asyncio.Task[None]] = set()
        self.unrecorded: set[asyncio.Future[None]] = set()
        self.room = asyncio.Event()
        # Items whose outcome was written while a claim was under way: that claim may have
        # read them before the write and must not start them again.
        self.settled_meanwhile: set[int] | None = None

    def _free(self) -> int:
        if len(self.unrecorded) >= UNRECORDED:
            return 0  # the database is behind: the relay waits for it
        return BATCH - len(self.sending)

    async def _send(self, item: OutboxItem) -> None:
        recorded = await self.worker._attempt(item)
        if recorded is None:
            self.held.discard(item.id)
            return
        self.unrecorded.add(recorded)
        recorded.add_done_callback(partial(self._recorded, item.id))

    def _recorded(self, item_id: int, future: asyncio.Future[None]) -> None:
        self.unrecorded.discard(future)
        self.held.discard(item_id)
        if self.settled_meanwhile is not None:
            self.settled_meanwhile.add(item_id)
        if not future.cancelled() and future.exception() is not None:
            # Its lease lapses and it is delivered again: at-least-once.
            log.error("outbox %s: sent, not recorded", item_id, exc_info=future.exception())
        self._wake()

    def _sent(self, item_id: int, task: asyncio.Task[None]) -> None:
        self.sending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.held.discard(item_id)
            log.error("outbox %s: outcome not recorded", item_id, exc_info=task.exception())
        self._wake()

    def _wake(self) -> None:
        if self._free() >= REFILL:
            self.room.set()

    async def deliver(self, stop: asyncio.Event) -> None:
        try:
            await self.run(stop)
            if self.sending:
                await asyncio.wait(self.sending)
            if self.unrecorded:
                await asyncio.wait(self.unrecorded)
        finally:
            # Cancelled while sending (a stop that timed out): what is unsent goes when
            # its lease lapses.
            for task in list(self.sending):
                task.cancel()

    async def _one_iteration(self) -> int:
        free = self._free()
        if free < REFILL:
            self.room.clear()
            self.snooze_on = self.room
            return 0
        # Cleared before the claim, so work queued while it runs is not slept through.
        self.ready.clear()
        self.settled_meanwhile = set()
        try:
            items = await self.worker._claim(free)
        finally:
            settled, self.settled_meanwhile = self.settled_meanwhile, None
        for item in items:
            if item.id in self.held or item.id in settled:
                # Still in flight here, or just recorded, and its lease lapsed meanwhile
                # (a slow relay, a clock that jumped): this claim took it again, and it
                # is not sent twice.
                continue
            self.held.add(item.id)
            task = asyncio.create_task(self._send(item))
            self.sending.add(task)
            task.add_done_callback(partial(self._sent, item.id))
        # Fewer than asked for: nothing more is due; wait for new work, or the next poll.
        self.snooze_on = self.ready
        return int(len(items) >= free)

    async def _snooze(self, stop: asyncio.Event) -> None:
        await first_of(self.snooze_on, stop, timeout=self.poll_seconds)
