"""Which thread a stored message belongs to: its reply token, else the Message-IDs it cites."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.inbound.mailparse import ParsedMail
from gateway.services import Services
from gateway.store.models import InboundMessage, Recipient


def is_duplicate(session: Session, row: InboundMessage) -> bool:
    """The same message (Message-ID, or bytes) was already recorded."""
    same = (
        InboundMessage.message_id == row.message_id
        if row.message_id
        else InboundMessage.sha256 == row.sha256
    )
    earlier = session.scalars(
        select(InboundMessage.id)
        .where(same, InboundMessage.id < row.id, InboundMessage.state == "done")
        .where(InboundMessage.outcome.not_in(("unparseable", "failed")))
        .limit(1)
    ).first()
    return earlier is not None


def match_recipient(
    services: Services, session: Session, row: InboundMessage, mail: ParsedMail
) -> Recipient | None:
    """The recipient whose signed reply token the message carries, if any."""
    tokens = services.tokens
    domain = services.config.reply_domain
    candidates = [tokens.token_from_address(a, domain) for a in row.rcpt_to]
    # A mangled reply address still matches through the Message-ID we sent.
    for header in ("in-reply-to", "references"):
        candidates.extend(tokens.tokens_in_message_ids(mail.headers.get(header, "")))
    for token in candidates:
        if token is None:
            continue
        verified = tokens.verify(token)
        if verified is not None:
            recipient = session.get(Recipient, verified.recipient_id)
            if recipient is not None:
                return recipient
    return None
