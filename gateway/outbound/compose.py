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
from collections.abc import Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from typing import Any

from sqlalchemy import BindParameter, bindparam, select
from sqlalchemy.orm import Session

from gateway import contract, i18n
from gateway.outbound import when
from gateway.outbound.group import GroupState
from gateway.outbound.mime import OutgoingMail, display_address
from gateway.outbound.view import MailSettings, lawyer_context, subject_of
from gateway.render import shown
from gateway.store.models import ApiKey, OutboxItem, Recipient, Request, Turn
from gateway.store.policy_models import RequestPolicy
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
    "approver_away": "notice",
    "reassigned": "notice",
    "late_objection": "notice",
    "delegation": "notice",
}


def header_safe(text: str, limit: int = _SUBJECT_CHARS) -> str:
    """One line of at most ``limit`` characters: no CR/LF ever reaches a header."""
    flat = _CONTROL.sub(" ", text).strip()
    flat = re.sub(r"\s{2,}", " ", flat)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def subject_for(request: Request, item: OutboxItem, zone: str = "UTC") -> str:
    """The subject ``item`` is sent with (see ``gateway.outbound.subjects``)."""
    return subject_of(item, request, item.created_at, when.zone(zone), dict(item.payload))


@dataclass(frozen=True)
class MailThread:
    """What one lawyer email is written from: its request, recipient and thread so far."""

    request: Request
    recipient: Recipient
    turns: list[Turn]
    # Message-IDs already sent to this recipient for this request, oldest first.
    earlier: list[str]
    # What the request's API key says of its client and matter ({} when nothing).
    key_party: dict[str, str] = field(default_factory=dict)
    # The request's approval policy as it stands (None: filed before policies existed).
    group: GroupState | None = None


# Built once: a worker reads the threads of every batch it claims, and building these
# (and their cache keys) anew each time cost about as much as running them.
_IDS: BindParameter[Any] = bindparam("ids", expanding=True)
_REQUESTS = select(Request).where(Request.id.in_(_IDS))
_RECIPIENTS = select(Recipient).where(Recipient.id.in_(_IDS))
_TURNS = select(Turn).where(Turn.request_id.in_(_IDS)).order_by(Turn.request_id, Turn.seq)
_SENT = (
    select(OutboxItem.request_id, OutboxItem.recipient_id, OutboxItem.id, OutboxItem.message_id)
    .where(OutboxItem.request_id.in_(_IDS), OutboxItem.channel == "email")
    .order_by(OutboxItem.id)
)
_GROUPS = select(
    RequestPolicy.request_id,
    RequestPolicy.rule,
    RequestPolicy.state,
    RequestPolicy.outcome,
    RequestPolicy.decided_at,
    RequestPolicy.delegates,
).where(RequestPolicy.request_id.in_(_IDS))
_PARTIES = select(ApiKey.name, ApiKey.client, ApiKey.matter).where(ApiKey.name.in_(_IDS))


def load_threads(session: Session, items: Sequence[OutboxItem]) -> dict[int, MailThread]:
    """The thread of each lawyer email in ``items``, by item id, in five queries for all.

    An outbox batch is composed from these: reading each email's rows on its own
    cost more than writing the email.
    """
    emails = [i for i in items if i.request_id is not None and i.recipient_id is not None]
    request_ids = sorted({i.request_id for i in emails if i.request_id is not None})
    recipient_ids = sorted({i.recipient_id for i in emails if i.recipient_id is not None})
    if not emails:
        return {}
    requests = {r.id: r for r in session.scalars(_REQUESTS, {"ids": request_ids})}
    recipients = {r.id: r for r in session.scalars(_RECIPIENTS, {"ids": recipient_ids})}
    turns: dict[int, list[Turn]] = {}
    for turn in session.scalars(_TURNS, {"ids": request_ids}):
        turns.setdefault(turn.request_id, []).append(turn)
    sent = _sent_before(session, [i for i in emails if i.purpose != "request"])
    parties = key_parties(session, [r.api_key_name for r in requests.values() if r.api_key_name])
    groups = {
        row[0]: GroupState(row[1], row[2], row[3], row[4], dict(row[5] or {}))
        for row in session.execute(_GROUPS, {"ids": request_ids})
    }
    threads: dict[int, MailThread] = {}
    for item in emails:
        request, recipient = (
            requests.get(item.request_id or 0),
            recipients.get(item.recipient_id or 0),
        )
        if request is None or recipient is None:
            continue
        earlier = [
            message_id
            for item_id, message_id in sent.get((request.id, recipient.id), [])
            if item_id < item.id
        ]
        threads[item.id] = MailThread(
            request,
            recipient,
            turns.get(request.id, []),
            earlier,
            parties.get(request.api_key_name or "", {}),
            groups.get(request.id),
        )
    return threads


def key_parties(session: Session, names: list[str]) -> dict[str, dict[str, str]]:
    """{key name: {"client": ..., "matter": ...}}: what each stored key says it works for."""
    if not names:
        return {}
    rows = session.execute(_PARTIES, {"ids": sorted(set(names))})
    return {
        name: {k: v for k, v in (("client", client), ("matter", matter)) if v}
        for name, client, matter in rows
    }


def list_id(reply_domain: str) -> str:
    """``List-Id`` (RFC 2919), one per gateway, so a lawyer can filter its mail."""
    label = re.sub(r"[^A-Za-z0-9.-]", "-", reply_domain.strip().strip(".")) or "localhost"
    return f"Human for AI requests <hfa.{label}>"


def finish_notice(
    msg: EmailMessage, reply_domain: str, text: str, html: str, language: str
) -> None:
    """A notice of the gateway's own finished: its List-Id and loop header (so the gateway
    knows it again if it comes back), its text and HTML parts, and their language."""
    msg["List-Id"] = list_id(reply_domain)
    msg[LOOP_HEADER] = reply_domain
    msg.set_content(text)
    msg.add_alternative(html, subtype="html")
    # After the parts: set_content() replaces the Content-* headers.
    msg["Content-Language"] = language


def sender_name(request: Request, from_name: str) -> str:
    """``HFA-00008 · contracts-bot via Human for AI``: the reference and the agent.

    The agent's name is its own words: hidden controls are shown escaped, line breaks
    flattened and the length bounded, so nothing it writes can add a header.
    """
    agent = header_safe(shown(request.fields.get("agent_name") or ""), 40)
    who = f"{request.reference} · {agent}" if agent else request.reference
    return f"{who} via {from_name}" if from_name else who


def _sent_before(
    session: Session, items: Sequence[OutboxItem]
) -> dict[tuple[int, int], list[tuple[int, str]]]:
    """(item id, Message-ID) of the emails of each (request, recipient) of ``items``, in order.

    The request email is queued with its recipient, when the request is filed: nothing
    can have been sent to that recipient before it, so request emails ask for nothing.
    """
    if not items:
        return {}
    wanted = {(i.request_id, i.recipient_id) for i in items}
    rows = session.execute(_SENT, {"ids": sorted({r for r, _ in wanted if r is not None})})
    found: dict[tuple[int, int], list[tuple[int, str]]] = {}
    for request_id, recipient_id, item_id, message_id in rows:
        pair = (request_id, recipient_id)
        if request_id is not None and recipient_id is not None and pair in wanted and message_id:
            found.setdefault((request_id, recipient_id), []).append((item_id, message_id))
    return found


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
    """The email ``item`` stands for, reading its thread in ``session``."""
    thread = load_threads(session, [item]).get(item.id)
    assert thread is not None
    return compose_from_thread(
        item,
        thread,
        renderer=renderer,
        mail_from=mail_from,
        reply_address=reply_address,
        loop_marker=loop_marker,
        settings=settings,
    )


# The same keywords as compose_lawyer_email, which reads the thread and passes them on:
# the two entry points (one item, or a batch read by load_threads) stay one signature.
def compose_from_thread(
    item: OutboxItem,
    thread: MailThread,
    *,
    renderer: Any,
    mail_from: str,
    reply_address: str,
    loop_marker: str,
    settings: MailSettings | None = None,
) -> OutgoingMail:
    """The email ``item`` stands for, from its thread as read by :func:`load_threads`."""
    settings = settings or MailSettings()
    request, recipient = thread.request, thread.recipient
    tz = when.zone(settings.zone)
    language = settings.language_for(recipient.address, thread.turns)
    with i18n.speaking(language):
        context = lawyer_context(
            item,
            request,
            recipient,
            thread.turns,
            reply_address=reply_address,
            tz=tz,
            key_party=thread.key_party,
            group=thread.group,
        )
        text, html = renderer.render(PURPOSE_TEMPLATE[item.purpose], **context)
    headers: list[tuple[str, str]] = [
        ("From", display_address(sender_name(request, settings.from_name), mail_from)),
        ("To", recipient.address),
        ("Reply-To", formataddr((f"{request.reference} answers", reply_address))),
        ("Subject", context["subject"]),
        ("Date", format_datetime(item.created_at)),
        ("Message-ID", item.message_id or ""),
        *_thread_headers(item, thread.earlier, _outside_ids(request.fields)),
        ("Auto-Submitted", "auto-replied" if item.purpose == "receipt" else "auto-generated"),
        ("X-Auto-Response-Suppress", "All"),
        ("X-HFA-Reference", request.reference),
        ("X-HFA-Kind", item.purpose),
        ("List-Id", list_id(loop_marker)),
        ("Content-Language", language),
        (LOOP_HEADER, loop_marker),
    ]
    # Parts go quoted-printable whenever a line or a character needs it, never base64.
    return OutgoingMail(headers, text, html)


def thread_ids_for_request(session: Session, request_id: int) -> list[str]:
    return [t.data.get("message_id", "") for t in load_turns(session, request_id)]
