"""Short notices to whoever sent a message that was held: why, and what to do.

A notice goes to the envelope sender of the held message (RFC 3834: an
automatic response goes to the return path), leaves with a null return path
(``MAIL FROM:<>``, RFC 3834 section 3.3: nothing ever bounces or answers back
to it), carries ``Auto-Submitted: auto-replied`` so it is never answered
automatically, and says nothing of the thread: its sender may not be on it. It
never echoes the held message's subject or text, only its date and Message-ID.
Who gets one, and how often, is decided by ``gateway.inbound.held``.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gateway.outbound import outbox
from gateway.outbound.compose import LOOP_HEADER, header_safe
from gateway.outbound.outbox import Deliverer
from gateway.outbound.transports import mail_transport
from gateway.services import Services
from gateway.store.models import OutboxItem

CHANNEL = "notice"
PURPOSE = "held_notice"
SUBJECT = "Your email was not recorded"


def notices_since(
    session: Session,
    since: datetime,
    *,
    address: str | None = None,
    request_id: int | None = None,
) -> int:
    """How many notices were queued at or after ``since``: to ``address``, on the thread
    ``request_id``, or (neither given) to everyone together."""
    query = select(func.count(OutboxItem.id)).where(
        OutboxItem.purpose == PURPOSE, OutboxItem.created_at >= since
    )
    if address is not None:
        query = query.where(OutboxItem.target == address)
    if request_id is not None:
        query = query.where(OutboxItem.request_id == request_id)
    return int(session.scalar(query) or 0)


def enqueue_notice(
    services: Services,
    session: Session,
    *,
    to: str,
    at: datetime,
    payload: dict[str, Any],
    request_id: int | None,
    reference: str | None,
) -> int:
    """Queue one notice in the caller's transaction; its outbox row id."""
    domain = services.config.reply_domain
    return outbox.enqueue(
        services,
        session,
        channel=CHANNEL,
        purpose=PURPOSE,
        request_id=request_id,
        reference=reference,
        target=to,
        message_id=f"<hfa-notice.{secrets.token_hex(8)}@{domain}>",
        payload=payload,
        at=at,
    )


def compose_notice(services: Services, item: OutboxItem) -> EmailMessage:
    config = services.config
    payload = item.payload
    text, html = services.renderer.render("held_notice", subject=SUBJECT, **payload)
    msg = EmailMessage()
    msg["From"] = config.mail_from
    msg["To"] = item.target
    msg["Subject"] = SUBJECT
    msg["Date"] = format_datetime(item.created_at)
    msg["Message-ID"] = item.message_id
    their_id = header_safe(str(payload.get("their_message_id") or ""), 900)
    if their_id.startswith("<") and their_id.endswith(">"):
        msg["In-Reply-To"] = their_id
        msg["References"] = their_id
    msg["Auto-Submitted"] = "auto-replied"
    msg["X-Auto-Response-Suppress"] = "All"
    msg[LOOP_HEADER] = config.reply_domain
    msg.set_content(text)
    msg.add_alternative(html, subtype="html")
    return msg


def notice_deliverer(services: Services) -> Deliverer:
    transport = mail_transport(services.config)

    async def deliver(services: Services, item: OutboxItem) -> str:
        message = compose_notice(services, item)
        # A null return path: an automatic response must not draw one in turn (RFC 3834).
        return await transport.send(message.as_bytes(), "", [item.target])

    return deliver


def deliverers(services: Services) -> dict[str, Deliverer]:
    return {CHANNEL: notice_deliverer(services)}
