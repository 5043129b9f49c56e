"""The email deliverer: a lawyer email composed from its thread, then sent."""

from __future__ import annotations

from collections.abc import Sequence

from gateway.lawyer_settings import LawyerSettings
from gateway.outbound.compose import MailThread, compose_from_thread, load_threads
from gateway.outbound.transports import MailTransport
from gateway.outbound.view import MailSettings
from gateway.services import Services
from gateway.store.models import OutboxItem


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
        return await self.transport.send(
            message.as_bytes(), config.mail_from, [thread.recipient.address]
        )


def email_deliverer(transport: MailTransport) -> EmailDeliverer:
    return EmailDeliverer(transport)
