"""Turn an outbox row into the email a lawyer receives.

Rendering happens at send time, not at submit time, so filing a request
stays lean; the Message-ID was fixed when the row was queued, so every retry
sends the same message. What the email says is worked out in
``gateway.outbound.view``; this module adds the headers: a subject per kind
of email, threading that keeps the root first, a From display name and a
readable Reply-To.
"""

from __future__ import annotations

import re
from email.utils import format_datetime, formataddr
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway import contract
from gateway.outbound import when
from gateway.outbound.mime import OutgoingMail
from gateway.outbound.view import MailSettings, lawyer_context, subject_of
from gateway.store.models import OutboxItem, Recipient, Request
from gateway.store.thread import load_turns

KNOWN_FIELDS = contract.request_fields()

LOOP_HEADER = "X-HFA-Loop"
_SUBJECT_CHARS = 90
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
# One Message-ID in angle brackets: nothing an agent sends can add a header line.
_MESSAGE_ID = re.compile(r"<[^<>\s@]{1,200}@[^<>\s@]{1,200}>")
# References keeps the thread's root and the most recent messages (RFC 5322 3.6.4).
_REFERENCES_KEPT = 20

PURPOSE_TEMPLATE = {
    "request": "request",
    "follow_up": "follow_up",
    "withdrawal": "follow_up",
    "receipt": "receipt",
    "reminder": "reminder",
    "escalation": "escalation",
    "closed": "notice",
    "deadline_passed": "notice",
    "escalated_notice": "notice",
    "answered_by_other": "notice",
}


def header_safe(text: str, limit: int = _SUBJECT_CHARS) -> str:
    """One line of at most ``limit`` characters: no CR/LF ever reaches a header."""
    flat = _CONTROL.sub(" ", text).strip()
    flat = re.sub(r"\s{2,}", " ", flat)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def subject_for(request: Request, item: OutboxItem, zone: str = "UTC") -> str:
    """The subject ``item`` is sent with (see ``gateway.outbound.subjects``)."""
    return subject_of(item, request, item.created_at, when.zone(zone), dict(item.payload))


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


def references(ids: list[str]) -> str:
    """The root first, then the most recent ones: clients thread on the root."""
    unique = list(dict.fromkeys(ids))
    if len(unique) > _REFERENCES_KEPT:
        unique = unique[:1] + unique[-(_REFERENCES_KEPT - 1) :]
    return " ".join(unique)


def _outside_ids(fields: dict[str, Any]) -> list[str]:
    # A request filed through the HumanLayer email channel may name the thread it continues.
    return [
        str(fields[key]).strip()
        for key in ("email_references_message_id", "email_in_reply_to_message_id")
        if isinstance(fields.get(key), str) and _MESSAGE_ID.fullmatch(str(fields[key]).strip())
    ]


def _thread_headers(
    item: OutboxItem, earlier: list[str], outside: list[str]
) -> list[tuple[str, str]]:
    replied_to = str(item.payload.get("reply_message_id") or "").strip()
    if not _MESSAGE_ID.fullmatch(replied_to):
        replied_to = ""
    chain = earlier if earlier else outside + earlier
    if replied_to:
        # A receipt answers the lawyer's own message, so it hangs under that reply.
        return [("In-Reply-To", replied_to), ("References", references([*chain, replied_to]))]
    if chain:
        return [("In-Reply-To", chain[-1]), ("References", references(chain))]
    return []


def compose_lawyer_email(
    session: Session,
    item: OutboxItem,
    *,
    renderer: Any,
    mail_from: str,
    reply_address: str,
    loop_marker: str,
    settings: MailSettings | None = None,
) -> OutgoingMail:
    settings = settings or MailSettings()
    request = session.get(Request, item.request_id)
    recipient = session.get(Recipient, item.recipient_id)
    assert request is not None and recipient is not None
    tz = when.zone(settings.zone)
    turns = load_turns(session, request.id)
    context = lawyer_context(item, request, recipient, turns, reply_address=reply_address, tz=tz)
    text, html = renderer.render(PURPOSE_TEMPLATE[item.purpose], **context)

    # The request email is queued with its recipient, when the request is filed:
    # nothing can have been sent to that recipient before it.
    earlier = [] if item.purpose == "request" else _thread_ids(session, item)
    sender = formataddr((settings.from_name, mail_from)) if settings.from_name else mail_from
    headers: list[tuple[str, str]] = [
        ("From", sender),
        ("To", recipient.address),
        ("Reply-To", formataddr((f"{request.reference} answers", reply_address))),
        ("Subject", context["subject"]),
        ("Date", format_datetime(item.created_at)),
        ("Message-ID", item.message_id or ""),
        *_thread_headers(item, earlier, _outside_ids(request.fields)),
        ("Auto-Submitted", "auto-replied" if item.purpose == "receipt" else "auto-generated"),
        ("X-Auto-Response-Suppress", "All"),
        ("X-HFA-Reference", request.reference),
        ("X-HFA-Kind", item.purpose),
        (LOOP_HEADER, loop_marker),
    ]
    # Parts go quoted-printable whenever a line or a character needs it, never base64.
    return OutgoingMail(headers, text, html)


def thread_ids_for_request(session: Session, request_id: int) -> list[str]:
    return [t.data.get("message_id", "") for t in load_turns(session, request_id)]
