"""Turn an outbox row into the email a lawyer receives.

Rendering happens at send time, not at submit time, so filing a request
stays lean; the Message-ID was fixed when the row was queued, so every retry
sends the same message.
"""

from __future__ import annotations

import re
from email.utils import format_datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway import contract
from gateway.outbound.mime import OutgoingMail
from gateway.store.models import OutboxItem, Recipient, Request
from gateway.store.thread import load_turns

KNOWN_FIELDS = contract.request_fields()

LOOP_HEADER = "X-HFA-Loop"
_SUBJECT_CHARS = 90
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
# One Message-ID in angle brackets: nothing an agent sends can add a header line.
_MESSAGE_ID = re.compile(r"<[^<>\s@]{1,200}@[^<>\s@]{1,200}>")

PURPOSE_TEMPLATE = {
    "request": "request",
    "follow_up": "follow_up",
    "withdrawal": "follow_up",
    "receipt": "receipt",
    "reminder": "reminder",
    "escalation": "escalation",
}


def header_safe(text: str, limit: int = _SUBJECT_CHARS) -> str:
    """One line of at most ``limit`` characters: no CR/LF ever reaches a header."""
    flat = _CONTROL.sub(" ", text).strip()
    flat = re.sub(r"\s{2,}", " ", flat)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def subject_for(request: Request, prefix: str = "") -> str:
    label = request.category.replace("_", " ").capitalize()
    urgent = "BLOCKING - " if request.urgency == "blocking" else ""
    gist = header_safe(str(request.fields.get("request", "")), 70)
    return f"{prefix}[{request.reference}] {urgent}{label}: {gist}"


def _thread_ids(session: Session, item: OutboxItem) -> list[str]:
    """Message-IDs already sent to this recipient for this request, oldest first."""
    rows = session.scalars(
        select(OutboxItem.message_id)
        .where(
            OutboxItem.request_id == item.request_id,
            OutboxItem.recipient_id == item.recipient_id,
            OutboxItem.channel == "email",
            OutboxItem.id < item.id,
        )
        .order_by(OutboxItem.id)
    )
    return [m for m in rows if m]


def compose_lawyer_email(
    session: Session,
    item: OutboxItem,
    *,
    renderer: Any,
    mail_from: str,
    reply_address: str,
    loop_marker: str,
) -> OutgoingMail:
    request = session.get(Request, item.request_id)
    recipient = session.get(Recipient, item.recipient_id)
    assert request is not None and recipient is not None
    fields = request.fields
    extra = sorted((k, str(v)) for k, v in fields.items() if k not in KNOWN_FIELDS)
    context: dict[str, Any] = {
        "subject": subject_for(request),
        "reference": request.reference,
        "category": request.category,
        "urgency": request.urgency,
        "fields": {k: fields.get(k) for k in KNOWN_FIELDS},
        "extra": extra,
        "received_at": contract.iso(request.received_at),
        "withdrawn": item.purpose == "withdrawal",
        **item.payload,
    }
    if item.purpose == "receipt":
        context.setdefault("status", request.status)
    text, html = renderer.render(PURPOSE_TEMPLATE[item.purpose], **context)

    # The request email is queued with its recipient, when the request is filed:
    # nothing can have been sent to that recipient before it.
    earlier = [] if item.purpose == "request" else _thread_ids(session, item)
    # A request filed through the HumanLayer email channel may name the thread it continues.
    outside = [
        str(fields[key]).strip()
        for key in ("email_references_message_id", "email_in_reply_to_message_id")
        if isinstance(fields.get(key), str) and _MESSAGE_ID.fullmatch(str(fields[key]).strip())
    ]
    headers: list[tuple[str, str | None]] = [
        ("From", mail_from),
        ("To", recipient.address),
        ("Reply-To", reply_address),
        ("Subject", subject_for(request, "Re: " if earlier else "")),
        ("Date", format_datetime(item.created_at)),
        ("Message-ID", item.message_id),
    ]
    if outside and not earlier:
        headers.append(("In-Reply-To", outside[-1]))
        headers.append(("References", " ".join(dict.fromkeys(outside))))
    if earlier:
        # Replies to a receipt or follow-up then land in the same thread in every client.
        headers.append(("In-Reply-To", earlier[-1]))
        headers.append(("References", " ".join(earlier[-20:])))
    headers += [
        ("Auto-Submitted", "auto-replied" if item.purpose == "receipt" else "auto-generated"),
        ("X-Auto-Response-Suppress", "All"),
        ("X-HFA-Reference", request.reference),
        (LOOP_HEADER, loop_marker),
    ]
    return OutgoingMail([(n, v) for n, v in headers if v is not None], text, html)


def thread_ids_for_request(session: Session, request_id: int) -> list[str]:
    return [t.data.get("message_id", "") for t in load_turns(session, request_id)]
