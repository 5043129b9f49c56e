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

from gateway import i18n
from gateway.i18n import N_, _
from gateway.outbound import outbox, when
from gateway.outbound.compose import finish_notice, header_safe
from gateway.outbound.mime import display_address
from gateway.outbound.outbox import Deliverer
from gateway.outbound.transports import mail_transport
from gateway.services import Services
from gateway.store.models import OutboxItem

CHANNEL = "notice"
PURPOSE = "held_notice"
SUBJECT = N_("Your email was not recorded")
# The reasons and advice gateway.inbound.held gives, as message ids of the catalogues
# (one with a detail in parentheses stays in English).
_HELD_WORDS = (
    N_("it did not come from the address the request was sent to."),
    N_(
        "if you are the lawyer the request was sent to, reply from that address, or ask "
        "the gateway's operator to accept this message. If you are not, nothing is needed."
    ),
    N_(
        "reply again from your usual mail program with a single From address, or ask "
        "the gateway's operator to accept this message."
    ),
    N_(
        "it does not answer a request this gateway knows: the reply address or the "
        "references of the original email were missing or no longer valid."
    ),
    N_(
        "answer with your mail program's Reply button on the original email, without "
        "changing the address it replies to."
    ),
    N_(
        "send your answer again as an ordinary email (plain text or simple formatting), "
        "or ask the gateway's operator to look at this message."
    ),
)


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


def _received_local(value: object, zone: str) -> str:
    """The held message's time as the reader's clock shows it, never an ISO timestamp."""
    try:
        at = datetime.fromisoformat(str(value))
    except (TypeError, ValueError):
        return _("(time unknown)")
    return when.local(at, when.zone(zone))


def compose_notice(services: Services, item: OutboxItem) -> EmailMessage:
    config = services.config
    payload = dict(item.payload)
    lawyer = config.lawyer
    language = lawyer.languages.get(item.target.strip().lower()) or lawyer.language
    # No reference: the sender of a held message may not be on the thread.
    with i18n.speaking(language) as spoken:
        subject = _(SUBJECT)
        payload["received_local"] = _received_local(payload.get("received_at"), lawyer.timezone)
        text, html = services.renderer.render("held_notice", subject=subject, **payload)
    msg = EmailMessage()
    msg["From"] = display_address(lawyer.from_name, config.mail_from)
    msg["To"] = item.target
    msg["Subject"] = subject
    msg["Date"] = format_datetime(item.created_at)
    msg["Message-ID"] = item.message_id
    their_id = header_safe(str(payload.get("their_message_id") or ""), 900)
    if their_id.startswith("<") and their_id.endswith(">"):
        msg["In-Reply-To"] = their_id
        msg["References"] = their_id
    msg["Auto-Submitted"] = "auto-replied"
    msg["X-Auto-Response-Suppress"] = "All"
    finish_notice(msg, config.reply_domain, text, html, spoken)
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
