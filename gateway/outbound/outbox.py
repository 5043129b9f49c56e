"""The durable outbox: at-least-once delivery of emails (and, by channel, webhooks).

A row is claimed with a lease (renewed while it is delivered), delivered,
then marked sent. A transient failure schedules a retry with capped
exponential backoff, for a period (gateway.outbound.retry); a permanent one,
or the end of the period, makes the row ``dead``: visible to ops (``hfa
outbox list --failed``), audited, and told to the thread as a system turn. A
process that dies mid-delivery leaves a lease that expires within
HFA_LEASE_SECONDS, and another worker picks the row up again with the same
Message-ID.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import bindparam, update
from sqlalchemy.orm import Session

from gateway import contract
from gateway.errors import DeliveryError, PermanentDelivery, TransientDelivery
from gateway.outbound import retry
from gateway.outbound.compose import compose_lawyer_email
from gateway.outbound.transports import MailTransport
from gateway.outbound.view import MailSettings
from gateway.runner import run_until_stopped
from gateway.services import Services
from gateway.store.models import OutboxItem, Recipient, Request
from gateway.store.prepared import connection_of, prepared_insert
from gateway.store.queue import claim, kept_leased
from gateway.store.thread import add_turn

log = logging.getLogger(__name__)

BATCH = 32

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


def shown_target(target: str) -> str:
    """The target as logs and the audit show it: a URL's query (and any user:password)
    may carry the receiver's secret, so only scheme, host, port and path are kept."""
    try:
        parts = urlsplit(target)
        port = parts.port
    except ValueError:
        return _URL_QUERY.sub(r"\1?...", target)
    if not parts.scheme or not parts.hostname:
        return target
    query = "?..." if parts.query else ""
    return f"{parts.scheme}://{parts.hostname}{f':{port}' if port else ''}{parts.path}{query}"


_URL_QUERY = re.compile(r"((?:https?|wss?)://[^\s?#]*)\?[^\s#]*", re.IGNORECASE)


def without_url_secrets(text: str) -> str:
    """``text`` (an error, a log line) with every URL's query replaced by ``?...``."""
    return _URL_QUERY.sub(r"\1?...", text)


class _NoUrlSecrets(logging.Filter):
    """httpx logs each request with its full URL: the line keeps all but the query."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = without_url_secrets(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        return True


logging.getLogger("httpx").addFilter(_NoUrlSecrets())


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
        where=(OutboxItem.next_attempt_at <= now,),
        order_by=(OutboxItem.next_attempt_at,),
    )


_MARK_SENT = (
    update(OutboxItem)
    .where(OutboxItem.id == bindparam("item_id"))
    .values(state="sent", sent_at=bindparam("now"), lease_until=None, last_error=None)
    .returning(OutboxItem.delay_noticed_at, OutboxItem.revived_by)
)


def _record_success(services: Services, session: Session, item: OutboxItem, detail: str) -> None:
    """Mark the claimed ``item`` sent: one prebuilt UPDATE and the audit entry.

    Everything the entry names is on the item as it was claimed; the row and its
    request are read back only when the thread was told of a delay or an ops retry
    (the UPDATE returns whether it was), to say it went out.
    """
    now = services.clock.now()
    marked = session.connection().execute(_MARK_SENT, {"item_id": item.id, "now": now}).first()
    services.audit.append(
        session,
        f"{item.channel}.sent",
        at=now,
        reference=contract.reference_for(item.request_id) if item.request_id else None,
        details={
            "outbox_id": item.id,
            "purpose": item.purpose,
            "to": shown_target(item.target),
            "attempt": item.attempts,
            "relay": detail[:300],
        },
    )
    if marked is not None and (marked.delay_noticed_at is not None or marked.revived_by):
        current = session.get(OutboxItem, item.id)
        request = session.get(Request, item.request_id) if item.request_id else None
        if current is not None:
            retry.notice_delivered(session, current, request, shown_target(item.target), now)


def _record_failure(
    services: Services, session: Session, item_id: int, error: DeliveryError
) -> None:
    config = services.config
    now = services.clock.now()
    item = session.get(OutboxItem, item_id)
    assert item is not None
    item.lease_until = None
    item.last_error = error.detail[:2000]
    request = session.get(Request, item.request_id) if item.request_id else None
    reference = request.reference if request else None
    permanent = isinstance(error, PermanentDelivery)
    if permanent or retry.exhausted(config, item, now):
        item.state = "dead"
        services.audit.append(
            session,
            f"{item.channel}.failed",
            at=now,
            reference=reference,
            details={
                "outbox_id": item.id,
                "purpose": item.purpose,
                "to": shown_target(item.target),
                "attempts": item.attempts,
                "error": item.last_error,
            },
        )
        if item.channel == "webhook" and item.last_error.startswith("410 "):
            # The receiver said it is gone: the push deliverer sends nothing more there.
            services.audit.append(
                session,
                "webhook.disabled",
                at=now,
                reference=reference,
                details={"outbox_id": item.id, "to": shown_target(item.target)},
            )
        if request is not None:
            add_turn(
                session,
                request,
                author="system",
                kind=f"{item.channel}_failed",
                at=now,
                body=f"Delivery of the {item.purpose.replace('_', ' ')} {item.channel} "
                f"to {shown_target(item.target)} failed after {item.attempts} attempt(s): "
                f"{item.last_error}",
                data={"outbox_id": item.id, "to": shown_target(item.target)},
            )
        return
    retry_after = error.retry_after if isinstance(error, TransientDelivery) else None
    delay = retry.next_delay(config, item, retry_after)
    item.next_attempt_at = now + timedelta(seconds=delay)
    retry.notice_delay(services, session, item, request, shown_target(item.target), now)
    services.audit.append(
        session,
        f"{item.channel}.deferred",
        at=now,
        reference=reference,
        details={
            "outbox_id": item.id,
            "attempt": item.attempts,
            "retry_in_seconds": round(delay, 3),
            "error": item.last_error,
        },
    )


def email_deliverer(transport: MailTransport) -> Deliverer:
    async def deliver(services: Services, item: OutboxItem) -> str:
        config = services.config

        def compose() -> tuple[bytes, str]:
            with services.db.reading() as session:
                recipient = session.get(Recipient, item.recipient_id)
                assert recipient is not None
                reply_address = services.tokens.reply_address(recipient.id, config.reply_domain)
                message = compose_lawyer_email(
                    session,
                    item,
                    renderer=services.renderer,
                    mail_from=config.mail_from,
                    reply_address=reply_address,
                    loop_marker=config.reply_domain,
                    settings=MailSettings(config.lawyer.from_name, config.lawyer.timezone),
                )
                return message.as_bytes(), recipient.address

        raw, address = await services.db.run(compose)
        return await transport.send(raw, config.mail_from, [address])

    return deliver


class OutboxWorker:
    """Claims due items and hands each to the deliverer of its channel."""

    def __init__(self, services: Services, deliverers: dict[str, Deliverer]) -> None:
        self.services = services
        self.deliverers = deliverers

    async def run_once(self) -> int:
        """Deliver what is due now; returns how many items were attempted."""
        services = self.services

        def claim() -> list[OutboxItem]:
            with services.db.transaction() as session:
                return claim_due(services, session, services.clock.now(), BATCH)

        items = await services.db.run(claim)
        if items:
            lease = timedelta(seconds=services.config.lease_seconds)
            ids = [i.id for i in items]
            async with kept_leased(services.db, services.clock.now, OutboxItem, ids, lease):
                await asyncio.gather(*(self._deliver(item) for item in items))
        return len(items)

    async def _deliver(self, item: OutboxItem) -> None:
        services = self.services
        deliverer = self.deliverers.get(item.channel)
        try:
            if deliverer is None:
                raise PermanentDelivery(f"no deliverer for channel {item.channel!r}")
            detail = await deliverer(services, item)
        except DeliveryError as exc:
            log.warning(
                "outbox %s to %s: %s",
                item.id,
                shown_target(item.target),
                without_url_secrets(exc.detail),
            )
            await services.db.write(partial(_record_failure, services, item_id=item.id, error=exc))
            return
        except Exception as exc:
            # A bug must not lose the item: it is retried like a transient failure.
            log.exception("outbox %s: unexpected error", item.id)
            failure = TransientDelivery(type(exc).__name__)
            await services.db.write(
                partial(_record_failure, services, item_id=item.id, error=failure)
            )
            return
        # Deliveries that finish together are recorded in one commit.
        await services.db.write(partial(_record_success, services, item=item, detail=detail))

    async def run_forever(self, stop: asyncio.Event) -> None:
        services = self.services
        await run_until_stopped(
            "outbox",
            self.run_once,
            services.outbox_ready,
            services.config.worker_poll_seconds,
            stop,
        )
