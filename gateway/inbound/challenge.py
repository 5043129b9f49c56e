"""A held reply the lawyer can confirm: the challenge, and the CONFIRM that answers it.

When a reply to a request is held because its sender is not proven (the
ladder in ``assurance`` did not reach what the policy asks, or ``sender``
refused it), the lawyer's registered address, the one the request was sent
to, gets a challenge: "we received a reply we could not verify; reply CONFIRM
to record it". Its reply address is signed for that held message alone::

    confirm+<token>@REPLY_DOMAIN    token = version | inbound id | HMAC (10 bytes)

so only someone who reads the registered mailbox can answer it. A CONFIRM to
it, from the lawyer's address, that passes the same ladder (and the domain's
explicit policy, if one is set) records the held reply as the lawyer's answer;
the turn's ``authenticated_by`` says so (method ``confirm``, with the
confirm's own check and why the reply was held). Anything else sent there
records nothing (outcome ``unconfirmed``) and draws no further mail.

A challenge is sent once per held message, at most CHALLENGES_PER_DAY a day to
one recipient of a request, so a stream of forgeries to a leaked reply address
cannot flood the lawyer; a CONFIRM counts for CONFIRM_DAYS after the reply
arrived.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import re
import secrets
import struct
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.inbound.assurance import proven_sender
from gateway.inbound.effect import ask_of
from gateway.inbound.mailparse import ParsedMail
from gateway.inbound.reading import parse_stored
from gateway.inbound.record import Outcome, finish, record_reply, reply_of, text_of
from gateway.inbound.reply import Reply
from gateway.inbound.sender import SenderCheck
from gateway.inbound.sender_policy import refusal
from gateway.outbound import outbox
from gateway.outbound.challenge_mail import challenge_mail
from gateway.outbound.outbox import Deliverer
from gateway.outbound.receipts import reading_key
from gateway.outbound.transports import mail_transport
from gateway.replies import DecisionKind, Reading, ReplyError, read_reply
from gateway.services import Services
from gateway.store import blobs
from gateway.store.models import InboundMessage, OutboxItem, Recipient, Request
from gateway.tokens import derived_keys

CHANNEL = "challenge"
PURPOSE = "sender_challenge"
CHALLENGES_PER_DAY = 3
CONFIRM_DAYS = 7
_VERSION = 1
_MAC_BYTES = 10
_LOCAL = re.compile(r"^confirm\+([a-z2-7]{31})$")
_CONFIRM_WORD = re.compile(r"^\W*confirm\b", re.IGNORECASE)


@functools.cache
def _keys(secret_keys: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(derived_keys(secret_keys, "hfa.sender-challenge"))


def _mac(key: bytes, body: bytes) -> bytes:
    return hmac.new(key, body, hashlib.sha256).digest()[:_MAC_BYTES]


def challenge_address(services: Services, inbound_id: int) -> str:
    body = struct.pack(">BQ", _VERSION, inbound_id)
    raw = body + _mac(_keys(services.tokens.secret_keys)[-1], body)
    token = base64.b32encode(raw).decode("ascii").rstrip("=").lower()
    return f"confirm+{token}@{services.config.reply_domain}"


def challenged_message(services: Services, address: str) -> int | None:
    """The held message a challenge address was signed for, or None."""
    local, _, host = address.strip().strip("<>").lower().rpartition("@")
    match = _LOCAL.match(local)
    if match is None or host != services.config.reply_domain:
        return None
    token = match.group(1)
    try:
        raw = base64.b32decode(token.upper() + "=" * (-len(token) % 8))
    except ValueError:
        return None
    if len(raw) != 9 + _MAC_BYTES or raw[0] != _VERSION:
        return None
    body, mac = raw[:9], raw[9:]
    ok = False
    for key in _keys(services.tokens.secret_keys):
        # Every key is tried, so the time does not say which one matched.
        ok |= hmac.compare_digest(_mac(key, body), mac)
    return int(struct.unpack(">Q", body[1:])[0]) if ok else None


def _sent_today(session: Session, recipient_id: int, now: datetime) -> int:
    query = select(func.count(OutboxItem.id)).where(
        OutboxItem.purpose == PURPOSE,
        OutboxItem.recipient_id == recipient_id,
        OutboxItem.created_at >= now - timedelta(days=1),
    )
    return int(session.scalar(query) or 0)


def _reads_as(mail: ParsedMail | None, request: Request) -> tuple[str, str]:
    """(what the held reply decides, its first lines) for the lawyer to recognise it: its
    one reading, the same the thread records once the lawyer confirms it."""
    if mail is None:
        return "", ""
    try:
        reply = reply_of(mail)
        reading = mail.reading
        if not isinstance(reading, Reading):
            # Held before it was read against its request (a sender that is not the lawyer).
            text = text_of(mail, reply)
            reading = read_reply(text, ask_of(request), has_attachments=bool(mail.attachments))
            mail.reading = reading
    except ReplyError:
        return "", ""
    lines = [line for line in reply.new_text.strip().splitlines() if line.strip()][:8]
    # Its kind, not its bare decision: an approval with conditions is named as one.
    return reading_key(reading.kind) or "", "\n".join(lines)[:600]


def send(
    services: Services,
    session: Session,
    row: InboundMessage,
    outcome: Outcome,
    mail: ParsedMail | None,
) -> bool:
    """Queue the challenge for a held reply; False when the daily cap says no."""
    request, recipient = outcome.request, outcome.recipient
    if request is None or recipient is None:
        return False
    now = services.clock.now()
    if _sent_today(session, recipient.id, now) >= CHALLENGES_PER_DAY:
        return False
    decision, excerpt = _reads_as(mail, request)
    claimed = (mail.sender[0] if mail is not None and mail.sender else None) or row.mail_from
    outbox.enqueue(
        services,
        session,
        channel=CHANNEL,
        purpose=PURPOSE,
        request_id=request.id,
        reference=request.reference,
        recipient_id=recipient.id,
        target=recipient.address,
        message_id=f"<hfa-challenge.{secrets.token_hex(8)}@{services.config.reply_domain}>",
        payload={
            "inbound_id": row.id,
            "reference": request.reference,
            "claimed_from": str(claimed)[:300],
            "received_at": iso(row.received_at),
            "why": outcome.detail[:300],
            "decision": decision,
            "excerpt": excerpt,
        },
        at=now,
    )
    return True


def compose(services: Services, item: OutboxItem) -> EmailMessage:
    """The challenge, written in the lawyer's language (``outbound.challenge_mail``)."""
    confirm_to = challenge_address(services, int(item.payload["inbound_id"]))
    with services.db.read_only() as session:
        request = session.get(Request, item.request_id) if item.request_id else None
        return challenge_mail(services, item, confirm_to, request)


def deliverers(services: Services) -> dict[str, Deliverer]:
    transport = mail_transport(services.config)

    async def deliver(services: Services, item: OutboxItem) -> str:
        message = compose(services, item)
        return await transport.send(message.as_bytes(), services.config.mail_from, [item.target])

    return {CHANNEL: deliver}


def confirmed_inbound(services: Services, row: InboundMessage) -> int | None:
    """The held message this one answers the challenge of, when sent to a challenge address."""
    for address in row.rcpt_to:
        held = challenged_message(services, address)
        if held is not None:
            return held
    return None


def _confirm_check(services: Services, session: Session, confirm: Reply) -> SenderCheck | str:
    """The CONFIRM's own check through the ladder, or why it does not count (``confirm``:
    the CONFIRM, as a reply to the held message's request and recipient)."""
    config = services.config
    if not _CONFIRM_WORD.match(_new_text(confirm.mail)):
        return "the reply does not start with CONFIRM"
    check = proven_sender(config, session, confirm)
    if not check.ok:
        return check.reason
    # The challenge address is the secret here; an explicit domain policy still applies.
    refused = refusal(config, check, DecisionKind.QUESTION)
    return refused or check


def _new_text(mail: ParsedMail) -> str:
    try:
        return reply_of(mail).new_text
    except ReplyError:
        return ""


def take_confirm(
    services: Services, session: Session, row: InboundMessage, mail: ParsedMail, held_id: int
) -> Outcome:
    """A reply to a challenge: the held reply recorded, or why not (outcome unconfirmed)."""
    held = session.get(InboundMessage, held_id)
    if held is None or held.outcome != "unverified_sender" or held.recipient_id is None:
        return Outcome("unconfirmed", f"inbound {held_id} is no longer held")
    request = session.get(Request, held.request_id)
    recipient = session.get(Recipient, held.recipient_id)
    assert request is not None and recipient is not None
    now = services.clock.now()
    if now - held.received_at > timedelta(days=CONFIRM_DAYS):
        return Outcome("unconfirmed", f"the challenge expired after {CONFIRM_DAYS} days")
    check = _confirm_check(services, session, Reply(row, mail, request, recipient, now))
    if isinstance(check, str):
        return Outcome("unconfirmed", check[:300], request, recipient)
    held_mail = parse_stored(blobs.raw_of(session, held))
    if not isinstance(held_mail, ParsedMail):
        return Outcome("unconfirmed", "the held reply cannot be read", request, recipient)
    vouched = SenderCheck(
        True,
        check.address,
        authenticated_by=_confirmed_entry(check, held, row, held_mail, now),
        strength="vouched",
    )
    outcome = record_reply(
        services, session, Reply(held, held_mail, request, recipient, now, vouched)
    )
    services.audit.append(
        session,
        "inbound.confirmed",
        at=now,
        actor=check.address,
        reference=request.reference,
        details={"inbound_id": held.id, "confirm_inbound_id": row.id},
    )
    finish(services, session, held, outcome)
    return Outcome("confirmed", f"recorded held message {held.id}", request, recipient)


def _confirmed_entry(
    check: SenderCheck,
    held: InboundMessage,
    row: InboundMessage,
    held_mail: ParsedMail,
    now: datetime,
) -> dict[str, Any]:
    confirm = check.authenticated_by if isinstance(check.authenticated_by, dict) else {}
    held_from = (held_mail.sender or (None, ""))[0] or held.mail_from
    return {
        "method": "confirm",
        "domain": check.address.rpartition("@")[2],
        "result": "pass",
        "verified_by": "gateway",
        "checked_at": iso(now),
        "confirm": confirm,
        "confirm_inbound_id": row.id,
        "held_from": held_from,
        "held_because": (held.outcome_detail or "")[:300],
    }
