"""Answers pushed to the agent's reply_to channel (email or signed webhook).

``enqueue_for_turn`` is called in the same transaction that records a human
turn or a closing status, so a push is queued exactly when the record is.
What is queued is a snapshot (the event as JSON), so every retry sends the
same body under the same ``webhook-id`` or Message-ID.

reply_to is read as:

- an email address -> an email (channel ``push_email``) with the reference,
  status, the human's text and decision and a read-only thread link;
- an ``https://`` URL -> a Standard Webhooks POST (channel ``webhook``);
- anything else (``slack:#legal``, a phone number) -> kept on the request,
  shown to the lawyer and echoed as ``reply_expected_via``, not delivered.

The access token is never part of a push.
"""

from __future__ import annotations

import json
import re
import secrets
import uuid
from datetime import timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway import contract, i18n
from gateway.errors import PermanentDelivery
from gateway.outbound import outbox, when
from gateway.outbound.compose import LOOP_HEADER, header_safe, list_id
from gateway.outbound.mime import display_address
from gateway.outbound.outbox import Deliverer
from gateway.outbound.transports import mail_transport
from gateway.outbound.webhooks import WebhookSender, load_or_create_secrets
from gateway.services import Services
from gateway.store.models import OutboxItem, ReadLink, Request, Turn
from gateway.store.thread import human_has_replied, load_turns, turn_as_json
from gateway.tokens import hash_secret

WEBHOOK = "webhook"
PUSH_EMAIL = "push_email"
_EMAIL = re.compile(r"^[^@\s<>(),;:\"\[\]]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,63}$")


def channel_for(services: Services, reply_to: str | None) -> str | None:
    """``push_email``, ``webhook`` or None (kept and shown, but not delivered)."""
    if not reply_to:
        return None
    value = reply_to.strip()
    lowered = value.lower()
    if lowered.startswith("https://") or (
        lowered.startswith("http://") and services.config.webhook_allow_private
    ):
        return WEBHOOK
    address = lowered.removeprefix("mailto:")
    if _EMAIL.match(address):
        if address.endswith("@" + services.config.reply_domain):
            # Our own reply addresses would only loop back to us.
            return None
        return PUSH_EMAIL
    return None


def _target(reply_to: str) -> str:
    value = reply_to.strip()
    return value[7:] if value.lower().startswith("mailto:") else value


READ_LINK_PREFIX = "hfar_"


def mint_read_link(services: Services, session: Session, request: Request) -> dict[str, str]:
    """A fresh read-only thread link for a push (the filing's own link is not stored).

    Only the link's hash (read_links) and what it is derived from (a nonce and a key
    id, in the outbox payload) are stored; the URL itself is derived when the push is
    sent (:func:`read_link_url`), so no capability sits in the database in clear.
    """
    nonce = secrets.token_urlsafe(16)
    capability, key_id = services.tokens.derived_secret(READ_LINK_PREFIX, nonce)
    session.add(
        ReadLink(
            request_id=request.id,
            capability_hash=hash_secret(capability),
            created_at=services.clock.now(),
        )
    )
    return {"nonce": nonce, "key": key_id}


def read_link_url(services: Services, link: dict[str, str]) -> str | None:
    """The thread URL of a link minted by :func:`mint_read_link` (None if its key is gone)."""
    try:
        capability, _ = services.tokens.derived_secret(READ_LINK_PREFIX, link["nonce"], link["key"])
    except KeyError:
        return None
    return f"{services.config.public_url}/v1/links/{capability}"


def event_with_link(services: Services, payload: dict[str, Any]) -> dict[str, Any]:
    """The event of a push payload as it is sent: with its thread URL filled in."""
    event: dict[str, Any] = payload["event"]
    link = payload.get("read_link")
    if link is None:
        return event
    data = dict(event["data"], thread_url=read_link_url(services, link))
    return dict(event, data=data)


def event_type(turn: Turn) -> str:
    """request.human_turn, request.status_changed, or request.<system turn kind>."""
    if turn.author == "human":
        return "request.human_turn"
    return f"request.{turn.kind}"


def event_for(
    services: Services,
    session: Session,
    request: Request,
    turn: Turn,
    thread_url: str | None,
    policy: dict[str, Any] | None = None,
) -> dict[str, Any]:
    session.flush()
    turns = load_turns(session, request.id)
    new = [t for t in turns if t.seq >= turn.seq]
    event: dict[str, Any] = {
        "type": event_type(turn),
        "timestamp": contract.iso(turn.at),
        "data": {
            "reference": request.reference,
            "status": request.status,
            "human_has_replied": human_has_replied(turns),
            "turns": [turn_as_json(t) for t in new],
            "thread_url": thread_url,
            "notice": _notice(request, turn),
        },
    }
    if policy is not None:
        # Where the approval policy stands: its outcome, the votes, any conflict.
        event["data"]["policy"] = policy
    return event


def _notice(request: Request, turn: Turn) -> str:
    """What the status means; for a late reply, that it changes nothing."""
    human = turn.author == "human"
    return contract.status_notice(
        request.status,
        kind=turn.kind if human else None,
        late=human and bool(turn.data.get("late")),
    )


def enqueue_for_turn(
    services: Services,
    session: Session,
    request: Request,
    turn: Turn,
    policy: dict[str, Any] | None = None,
) -> None:
    """Queue delivery of ``turn`` to the request's reply_to channel, if it has one."""
    channel = channel_for(services, request.reply_to)
    if channel is None or request.reply_to is None:
        return
    now = services.clock.now()
    link = mint_read_link(services, session, request)
    event = event_for(services, session, request, turn, None, policy)
    domain = services.config.reply_domain
    message_id = (
        f"msg_{uuid.uuid4().hex}"
        if channel == WEBHOOK
        else f"<hfa-push.{secrets.token_hex(8)}@{domain}>"
    )
    outbox.enqueue(
        services,
        session,
        channel=channel,
        purpose="push",
        request_id=request.id,
        reference=request.reference,
        target=_target(request.reply_to),
        message_id=message_id,
        payload={"event": event, "read_link": link},
        at=now,
    )


def _gone(session: Session, url: str) -> bool:
    """Did this URL answer 410 Gone before? Then nothing more is sent to it."""
    row = session.scalars(
        select(OutboxItem.id)
        .where(
            OutboxItem.channel == WEBHOOK,
            OutboxItem.target == url,
            OutboxItem.state == "dead",
            OutboxItem.last_error.like("410 %"),
        )
        .limit(1)
    ).first()
    return row is not None


def webhook_deliverer(services: Services) -> Deliverer:
    config = services.config
    sender = WebhookSender(
        load_or_create_secrets(config.webhook_secrets, config.data_dir),
        timeout=config.webhook_timeout_seconds,
        allow_private=config.webhook_allow_private,
    )

    async def deliver(services: Services, item: OutboxItem) -> str:
        now = services.clock.now()
        since = item.retry_since or item.created_at
        if now - since > timedelta(seconds=services.config.webhook_retry_seconds):
            raise PermanentDelivery(
                f"gave up after {services.config.webhook_retry_seconds:g} seconds of retries"
            )

        def gone() -> bool:
            with services.db.read_only() as session:
                return _gone(session, item.target)

        if await services.db.run(gone):
            raise PermanentDelivery(
                "410 earlier: the receiver said it is gone; deliveries to this URL stopped"
            )
        event = event_with_link(services, item.payload)
        body = json.dumps(event, ensure_ascii=False).encode("utf-8")
        assert item.message_id is not None
        return await sender.post(item.target, item.message_id, body)

    return deliver


_HUMAN_SAID = {
    "approval": "approved the proposed action",
    "rejection": "rejected the proposed action",
    "decline": "declined the request",
    "question": "asked a question",
    "acknowledgement": "is on it (has read it; no answer yet)",
    "close": "closed the request",
}
_SYSTEM_NEWS = {
    "deadline_passed": "Deadline passed, no answer yet",
    "status_changed": "Status changed",
}


def _said(turn: dict[str, Any]) -> str:
    """What the human did, in plain words: ``approved the proposed action``."""
    reading = turn.get("reading")
    if isinstance(reading, dict) and reading.get("kind"):
        # The reply's one reading, as the receipt tells it to the lawyer.
        key = str(reading.get("decision") or "")
        conditional = reading["kind"] == "conditional_approval"
    else:
        key = turn.get("decision") or (
            "acknowledgement" if turn["kind"] == "acknowledgement" else ""
        )
        conditional = key == "approval" and bool(turn.get("conditions"))
    said = _HUMAN_SAID.get(str(key), "replied (no decision read)")
    if conditional:
        # The news first: a subject cut short still says WITH CONDITIONS.
        said = "approved, WITH CONDITIONS, the proposed action (a conditional approval)"
    if isinstance(reading, dict) and reading.get("exceeds"):
        # "Only up to EUR 40,000" on a payment of 48,500: not leave to do what was asked.
        said += f"; NOTE: {reading['exceeds']}"
    if turn.get("late"):
        said = f"replied after the request was closed ({said}): kept on the record, not acted on"
    return said


def _who(turn: dict[str, Any]) -> str:
    """``Counsel (counsel@firm.test)``, or the address alone when no name came with it."""
    address = str(turn.get("from") or "").strip()
    name = " ".join(str(turn.get("from_name") or "").split())
    if name and address:
        return f"{name} ({address})"
    return address or name or "The lawyer"


def _push_headline(data: dict[str, Any]) -> str:
    policy = data.get("policy") or {}
    if policy.get("outcome") == "pending":
        return "A reply that does not count towards the approval policy: still pending"
    if policy.get("outcome") and len(policy.get("approvers", ())) > 1:
        outcome = str(policy["outcome"]).replace("_", " ").upper()
        conflict = " (conflicting votes)" if policy.get("conflict") else ""
        return f"Outcome: {outcome}{conflict}"
    human = [t for t in data["turns"] if t["author"] == "human"]
    if human:
        return f"{_who(human[-1])} {_said(human[-1])}"
    kinds = [t["kind"] for t in data["turns"]]
    for kind, news in _SYSTEM_NEWS.items():
        if kind in kinds:
            return news if data["status"] != "closed" else f"{news}: closed"
    return f"Status: {data['status']}"


def compose_push_email(services: Services, item: OutboxItem, event: dict[str, Any]) -> EmailMessage:
    config = services.config
    data = event["data"]
    tz = when.zone(config.lawyer.timezone)
    headline = _push_headline(data)
    # The headline is shortened, never the reference the agent's mailbox sorts by.
    subject = f"{header_safe(headline, 78 - len(data['reference']) - 3)} [{data['reference']}]"
    turns = [
        t
        | {"at_local": when.local_iso(t["at"], tz)}
        | ({"label": f"{_who(t)} {_said(t)}"} if t["author"] == "human" else {})
        for t in data["turns"]
    ]
    notice = data["notice"]
    # The push goes to the agent, which reads the contract's English.
    with i18n.speaking(i18n.DEFAULT_LANGUAGE):
        text, html = services.renderer.render(
            "push",
            subject=subject,
            headline=headline,
            reference=data["reference"],
            status=data["status"],
            notice=notice,
            turns=turns,
            thread_url=data["thread_url"],
            preheader=f"{headline}. {notice}",
        )
    msg = EmailMessage()
    msg["From"] = display_address(
        " · ".join(n for n in (data["reference"], config.lawyer.from_name) if n), config.mail_from
    )
    msg["To"] = item.target
    msg["Subject"] = subject
    msg["Date"] = format_datetime(item.created_at)
    msg["Message-ID"] = item.message_id
    msg["Auto-Submitted"] = "auto-generated"
    msg["X-Auto-Response-Suppress"] = "All"
    msg["X-HFA-Reference"] = data["reference"]
    msg["X-HFA-Kind"] = "push"
    msg["List-Id"] = list_id(config.reply_domain)
    msg[LOOP_HEADER] = config.reply_domain
    msg.set_content(text, cte="quoted-printable")
    msg.add_alternative(html, subtype="html", cte="quoted-printable")
    return msg


def push_email_deliverer(services: Services) -> Deliverer:
    transport = mail_transport(services.config)

    async def deliver(services: Services, item: OutboxItem) -> str:
        message = compose_push_email(services, item, event_with_link(services, item.payload))
        return await transport.send(message.as_bytes(), services.config.mail_from, [item.target])

    return deliver


def deliverers(services: Services) -> dict[str, Deliverer]:
    """Outbox deliverers for the push channels (the lawyer email channel is the server's)."""
    return {WEBHOOK: webhook_deliverer(services), PUSH_EMAIL: push_email_deliverer(services)}
