"""The email deliverer: a lawyer email composed from its thread, then sent."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Sequence
from datetime import timedelta
from functools import partial

from sqlalchemy import bindparam, update
from sqlalchemy.orm import Session

from gateway.outbound import hold_log
from gateway.outbound.compose import MailThread, load_threads
from gateway.outbound.compose_lane import START_BATCH, ComposeLane
from gateway.outbound.composer import Batch, Composed
from gateway.outbound.transports import (
    MailTransport,
    after_dot,
    before_dot,
    dot_accepted,
    handed_over,
)
from gateway.outbound.view import MailSettings
from gateway.services import Services
from gateway.settings.lawyers import LawyerSettings
from gateway.store.models import OutboxItem
from gateway.store.prepared import Prepared, connection_of

log = logging.getLogger(__name__)

# Emails handed to the composing process together: few, so the first go out soon.
HANDOVER = 4

# The hold before the final dot, compiled once: built and compiled by the ORM for each message,
# it cost more than the rest of the message's writes.
_HOLD = Prepared(
    update(OutboxItem)
    .where(OutboxItem.id == bindparam("item_id"), OutboxItem.state == "pending")
    .values(lease_until=bindparam("until"))
)


def mail_settings(lawyer: LawyerSettings) -> MailSettings:
    return MailSettings(lawyer.from_name, lawyer.timezone, lawyer.language, lawyer.languages)


class EmailDeliverer:
    """Composes a lawyer email from its thread and sends it through the transport.

    The threads of a claimed batch are read in one read transaction (``prepare``); an
    item that was not prepared reads its own. With a composing process (``lane``), the
    first of a batch's emails to be sent hands the prepared ones over, HANDOVER at a
    time; any it did not write are written here.
    """

    def __init__(self, transport: MailTransport, lane: ComposeLane | None = None) -> None:
        self.transport = transport
        self.lane = lane
        self._prepared: dict[int, tuple[OutboxItem, MailThread]] = {}
        # Emails handed to the composing process with another's, before their own
        # delivery began: what it wrote (None: write it here), and the thread.
        self._handed: dict[int, tuple[asyncio.Future[bytes | None], MailThread]] = {}
        self._large_batch = False
        self._handing: set[asyncio.Task[None]] = set()

    def prepare(self, services: Services, items: Sequence[OutboxItem]) -> None:
        with services.db.read_only() as session:
            threads = load_threads(session, items)
        for item in items:
            # Claimed again (its lease lapsed): written anew from its thread as it is now.
            self._handed.pop(item.id, None)
        self._prepared.update({i.id: (i, threads[i.id]) for i in items if i.id in threads})
        if len(threads) >= START_BATCH:
            self._large_batch = True

    @staticmethod
    def _read_thread(services: Services, item: OutboxItem) -> MailThread | None:
        with services.db.read_only() as session:
            return load_threads(session, [item]).get(item.id)

    async def __call__(self, services: Services, item: OutboxItem) -> str:
        config = services.config
        handed = self._handed.pop(item.id, None)
        if handed is not None:
            written, thread = handed
            composed = await written
        else:
            prepared = self._prepared.pop(item.id, None)
            found = prepared[1] if prepared is not None else None
            if found is None:
                found = await services.db.run(self._read_thread, services, item)
            assert found is not None, f"outbox {item.id}: its request or recipient is gone"
            thread = found
            composed = await self._from_lane(services, item, thread)
        if composed is None:
            reply_address = _reply_address(services, thread)
            composed = _batch(services, []).write(services.renderer, item, thread, reply_address)
        holds = hold_log.for_process(config.data_dir)
        token = before_dot.set(partial(_hold_until_the_dot_is_answered, services, item.id))
        dot_token = after_dot.set(partial(holds.dot, item.id))
        accepted_token = dot_accepted.set(partial(holds.accepted, item.id))
        kept: list[bytes] = []
        kept_token = handed_over.set(kept)
        try:
            detail = await self.transport.send(
                composed, config.mail_from, [thread.recipient.address]
            )
        finally:
            before_dot.reset(token)
            after_dot.reset(dot_token)
            dot_accepted.reset(accepted_token)
            handed_over.reset(kept_token)
        # Recorded with the success (gateway.outbound.outcomes); a transport that keeps
        # nothing (none of the gateway's) sends what it was given.
        item.relayed = kept[0] if kept else composed
        item.relayed_sha256 = hashlib.sha256(item.relayed).hexdigest()
        return detail

    async def _from_lane(
        self, services: Services, item: OutboxItem, thread: MailThread
    ) -> bytes | None:
        """``item``, and every prepared email whose delivery has not begun, written by
        the composing process; None when it did not write ``item``.

        They are handed over in small batches, answered one after the other, so that
        the first emails go out while the process writes the rest.
        """
        lane = self.lane
        if lane is None:
            return None
        if self._large_batch:
            self._large_batch = False
            await lane.wanted()
        if not lane.ready:
            return None
        emails = [(item, thread), *self._prepared.values()]
        self._prepared.clear()
        loop = asyncio.get_running_loop()
        waiting = {i.id: loop.create_future() for i, _t in emails}
        self._handed.update({i.id: (waiting[i.id], t) for i, t in emails[1:]})
        batches = [emails[at : at + HANDOVER] for at in range(0, len(emails), HANDOVER)]
        # Each batch is written to the process as its task starts, in this order.
        for later in batches[1:]:
            task = asyncio.create_task(self._hand_over(services, lane, later, waiting))
            self._handing.add(task)
            task.add_done_callback(self._handing.discard)
        await self._hand_over(services, lane, batches[0], waiting)
        mine: bytes | None = waiting[item.id].result()
        return mine

    @staticmethod
    async def _hand_over(
        services: Services,
        lane: ComposeLane,
        emails: list[tuple[OutboxItem, MailThread]],
        waiting: dict[int, asyncio.Future[bytes | None]],
    ) -> None:
        batch = _batch(services, [(i, t, _reply_address(services, t)) for i, t in emails])
        answers: Composed | None = None
        try:
            answers = await lane.compose(batch)
        finally:
            # Cancelled or not, no email handed over is left waiting.
            written = _written(emails, answers)
            for one, _thread in emails:
                future = waiting[one.id]
                if not future.done():
                    future.set_result(written.get(one.id))


def _written(
    emails: list[tuple[OutboxItem, MailThread]], answers: Composed | None
) -> dict[int, bytes]:
    """The emails the composing process wrote, by item id; why it wrote no other is logged."""
    if answers is None or len(answers) != len(emails):
        return {}
    written: dict[int, bytes] = {}
    for (item, _thread), answer in zip(emails, answers, strict=True):
        if isinstance(answer, bytes):
            written[item.id] = answer
        else:
            log.warning("outbox %s: not written by the composing process: %s", item.id, answer)
    return written


def _batch(services: Services, emails: list[tuple[OutboxItem, MailThread, str]]) -> Batch:
    """A batch of ``emails`` from this gateway's sender, with its lawyer mail settings."""
    config = services.config
    return Batch(config.mail_from, config.reply_domain, mail_settings(config.lawyer), emails)


def _reply_address(services: Services, thread: MailThread) -> str:
    return services.tokens.reply_address(thread.recipient.id, services.config.reply_domain)


async def _hold_until_the_dot_is_answered(services: Services, item_id: int) -> None:
    """Before the final dot: the item's lease is made to outlast the wait for its answer.

    Should this process die once the message may have been sent, no worker takes the
    item again until the relay could no longer be answering (RFC 5321 4.5.3.2.6): a
    second copy then is an honest retry, never a race with a slow relay. Taken only
    once the rest of the message is out, so a crash before the dot (the relay cannot
    have the message) holds nothing: the item goes again once its lease lapses.
    """
    config = services.config
    until = services.clock.now() + timedelta(
        seconds=config.relay_dot_timeout_seconds + config.lease_seconds
    )

    def hold(session: Session) -> None:
        _HOLD.execute(connection_of(session), {"item_id": item_id, "until": until})

    # Noted first: should this process die before the dot, the next start finds the
    # hold noted without its dot, and releases it (gateway.outbound.hold_log).
    hold_log.for_process(config.data_dir).hold(item_id, until)

    # One statement that commits as it ends: the row is marked sent soon after.
    await services.db.write_statement(hold)


def email_deliverer(transport: MailTransport, lane: ComposeLane | None = None) -> EmailDeliverer:
    return EmailDeliverer(transport, lane)
