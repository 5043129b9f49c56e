"""A2H v1.0 webhooks: the signed RESPONSE pushed to the agent's ``callback.url``.

The worker looks every ``CHECK_SECONDS`` for interactions with a callback whose
request has an answer, and queues one delivery for each through the outbox
(durable, retried with backoff, dead after the last try, like every push),
marking the interaction in the same transaction with a guarded update so two
workers never queue it twice. An expired interaction is pushed as an ERROR
(``ERR.EXPIRED``); a cancelled one is not pushed (the agent cancelled it).

Each POST carries ``X-A2H-Signature: t=<unix time>,v1=<hex HMAC-SHA256>`` over
``<t>.<body>`` with the agent's ``callback.secret``, and ``X-A2H-Delivery-ID``,
the same on every retry of one delivery so the agent can drop repeats.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from gateway.clock import iso
from gateway.errors import PermanentDelivery, StorageError, TransientDelivery
from gateway.intake import a2h_v1
from gateway.intake.jws import signer_for
from gateway.outbound import outbox
from gateway.outbound.outbox import Deliverer
from gateway.outbound.webhooks import (
    USER_AGENT,
    WebhookSender,
    pin,
    post_pinned,
    system_resolver,
)
from gateway.runner import Runner
from gateway.services import Services
from gateway.store.a2h_models import A2hInteraction
from gateway.store.models import OutboxItem, Request

log = logging.getLogger(__name__)

CHANNEL = "a2h_webhook"
CHECK_SECONDS = 1.0
BATCH = 50


def signature(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={digest.hexdigest()}"


def message_for(services: Services, session: Session, row: A2hInteraction) -> dict[str, Any] | None:  # fmt: skip
    """What the callback receives now: the RESPONSE, an ERROR once expired, else None."""
    status = a2h_v1.status_of(services, session, row, signer_for(services))
    if status["state"] == "ANSWERED":
        response: dict[str, Any] = status["response"]
        return response
    if status["state"] == "EXPIRED":
        return {
            "a2h_version": a2h_v1.VERSION,
            "type": "ERROR",
            "interaction_id": row.interaction_id,
            "responds_to": row.message_id,
            "error": status["error"],
            "timestamp": status["error"]["timestamp"],
        }
    return None


def queue_due(services: Services, session: Session, now: datetime) -> int:
    """Queue the callbacks whose answer (or expiry) is on the record; how many."""
    rows = session.scalars(
        select(A2hInteraction)
        .join(Request, Request.id == A2hInteraction.request_id)
        .where(A2hInteraction.callback_url.is_not(None))
        .where(A2hInteraction.callback_queued_at.is_(None))
        # Answered or ended, or past its deadline (ttl_sec) with no answer: expired.
        .where(Request.status.in_(("answered", "declined", "closed")) | (Request.deadline_at < now))
        .limit(BATCH)
    ).all()
    queued = 0
    for row in rows:
        request = session.get(Request, row.request_id)
        assert request is not None
        message = message_for(services, session, row)
        state = a2h_v1.state_of(row, a2h_v1.load(services, session, row), now)
        if message is None and state != "CANCELLED":
            continue
        claimed = session.execute(
            update(A2hInteraction)
            .where(A2hInteraction.interaction_id == row.interaction_id)
            .where(A2hInteraction.callback_queued_at.is_(None))
            .values(callback_queued_at=now)
        )
        if getattr(claimed, "rowcount", 0) != 1 or message is None:
            continue
        # outbox.enqueue's keywords, as every sender of a delivery passes them (outbound.push
        # too): one call, with this channel's values, not logic to share.
        outbox.enqueue(
            services,
            session,
            channel=CHANNEL,
            purpose="a2h_response",
            request_id=request.id,
            reference=request.reference,
            target=str(row.callback_url),
            message_id=f"a2h-{row.interaction_id}",
            payload={"interaction_id": row.interaction_id, "queued_at": iso(now)},
            at=now,
        )
        queued += 1
    return queued


async def run_callbacks(services: Services, stop: asyncio.Event) -> None:
    """The worker's loop: queue due callbacks every CHECK_SECONDS until ``stop``."""

    async def queue_callbacks() -> None:
        try:
            await services.db.write(lambda s: queue_due(services, s, services.clock.now()))
        except StorageError:
            # Expected while the database is away: one line, no traceback.
            log.warning("A2H callbacks: the database could not be read; trying again")

    failure = "A2H callbacks could not be queued; trying again"
    await Runner(failure, CHECK_SECONDS, iteration=queue_callbacks, logger=log).run(stop)


async def deliver(services: Services, item: OutboxItem) -> str:
    """POST the interaction's message to its callback, signed with the agent's secret."""

    def read() -> tuple[str, str, bytes] | None:
        with services.db.read_only() as session:
            row = session.get(A2hInteraction, item.payload.get("interaction_id"))
            if row is None or not row.callback_url or not row.callback_secret:
                return None
            message = message_for(services, session, row)
            body = json.dumps(message, ensure_ascii=False).encode() if message else b""
            return row.callback_url, row.callback_secret, body

    found = await services.db.run(read)
    if found is None or not found[2]:
        raise PermanentDelivery("the interaction or its callback is gone")
    url, secret, body = found
    config = services.config
    target = await pin(url, allow_private=config.webhook_allow_private, resolve=system_resolver)
    timestamp = int(time.time())
    headers = {
        "Host": target.host_header,
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-A2H-Signature": signature(secret, timestamp, body),
        "X-A2H-Delivery-ID": str(item.message_id),
    }
    import httpx

    try:
        response = await post_pinned(target, body, headers, config.webhook_timeout_seconds)
    except httpx.HTTPError as exc:
        raise TransientDelivery(f"{target.host}: {type(exc).__name__}"[:300]) from exc
    return WebhookSender._judge(target.host, response)


def deliverers(services: Services) -> dict[str, Deliverer]:
    return {CHANNEL: deliver}
