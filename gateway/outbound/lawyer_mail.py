"""The email deliverer: a lawyer email composed from its thread, then sent."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import timedelta
from functools import partial

from sqlalchemy import bindparam, update
from sqlalchemy.orm import Session

from gateway.outbound.compose import MailThread, compose_from_thread, load_threads
from gateway.outbound.transports import MailTransport, before_data, handed_over
from gateway.outbound.view import MailSettings
from gateway.services import Services
from gateway.settings.lawyers import LawyerSettings
from gateway.store.models import OutboxItem
from gateway.store.prepared import Prepared, connection_of

# The hold before DATA, compiled once: built and compiled by the ORM for each message,
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
    item that was not prepared reads its own.
    """

    def __init__(self, transport: MailTransport) -> None:
        self.transport = transport
        self._threads: dict[int, MailThread] = {}

    def prepare(self, services: Services, items: Sequence[OutboxItem]) -> None:
        with services.db.reading() as session:
            self._threads.update(load_threads(session, items))

    @staticmethod
    def _read_thread(services: Services, item: OutboxItem) -> MailThread | None:
        with services.db.reading() as session:
            return load_threads(session, [item]).get(item.id)

    async def __call__(self, services: Services, item: OutboxItem) -> str:
        config = services.config
        thread = self._threads.pop(item.id, None)
        if thread is None:
            thread = await services.db.run(self._read_thread, services, item)
        assert thread is not None, f"outbox {item.id}: its request or recipient is gone"
        message = compose_from_thread(
            item,
            thread,
            renderer=services.renderer,
            mail_from=config.mail_from,
            reply_address=services.tokens.reply_address(thread.recipient.id, config.reply_domain),
            loop_marker=config.reply_domain,
            settings=mail_settings(config.lawyer),
        )
        composed = message.as_bytes()
        token = before_data.set(partial(_hold_until_the_dot_is_answered, services, item.id))
        kept: list[bytes] = []
        kept_token = handed_over.set(kept)
        try:
            detail = await self.transport.send(
                composed, config.mail_from, [thread.recipient.address]
            )
        finally:
            before_data.reset(token)
            handed_over.reset(kept_token)
        # Recorded with the success (gateway.outbound.outcomes); a transport that keeps
        # nothing (none of the gateway's) sends what it was given.
        item.relayed = kept[0] if kept else composed
        item.relayed_sha256 = hashlib.sha256(item.relayed).hexdigest()
        return detail


async def _hold_until_the_dot_is_answered(services: Services, item_id: int) -> None:
    """Before DATA: the item's lease is made to outlast the wait for the dot's answer.

    Should this process die once the message may have been sent, no worker takes the
    item again until the relay could no longer be answering (RFC 5321 4.5.3.2.6): a
    second copy then is an honest retry, never a race with a slow relay.
    """
    config = services.config
    until = services.clock.now() + timedelta(
        seconds=config.relay_dot_timeout_seconds + config.lease_seconds
    )

    def hold(session: Session) -> None:
        _HOLD.execute(connection_of(session), {"item_id": item_id, "until": until})

    # One statement that commits as it ends: the row is marked sent soon after.
    await services.db.write_statement(hold)


def email_deliverer(transport: MailTransport) -> EmailDeliverer:
    return EmailDeliverer(transport)
