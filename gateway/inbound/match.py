"""Which thread a stored message belongs to: its reply token, else the Message-IDs it cites."""

from __future__ import annotations

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from gateway.inbound.mailparse import ParsedMail
from gateway.services import Services
from gateway.store.models import InboundMessage, Recipient

# Earlier copies of one Message-ID compared by their recipients (a message is stored
# once per reply address, so this is the number of addresses it may have gone to).
MAX_COPIES_CHECKED = 200


def _earlier_copies(row: InboundMessage) -> Select[list[str], int | None]:
    """Earlier processed copies of the same message (Message-ID, or else the bytes)."""
    same = (
        InboundMessage.message_id == row.message_id
        if row.message_id
        else InboundMessage.sha256 == row.sha256
    )
    return (
        select(InboundMessage.rcpt_to, InboundMessage.request_id)
        .where(same, InboundMessage.id < row.id, InboundMessage.state == "done")
        .where(InboundMessage.outcome.not_in(("unparseable", "failed")))
    )


def _addresses(rcpt_to: list[str]) -> list[str]:
    return sorted(a.strip().lower() for a in rcpt_to)


def is_duplicate(session: Session, row: InboundMessage) -> bool:
    """The same message was processed before for the same recipients (a redelivery).

    Checked before the message is read, so a redelivery costs one query.
    """
    mine = _addresses(row.rcpt_to)
    earlier = session.execute(_earlier_copies(row).limit(MAX_COPIES_CHECKED))
    return any(_addresses(copy.rcpt_to) == mine for copy in earlier)


def is_duplicate_for(session: Session, row: InboundMessage, request_id: int) -> bool:
    """The same message was processed before for this request.

    Deduplication is per (request, Message-ID): one message sent to the reply
    addresses of two requests is an answer on each, a second copy on the same
    request is not.
    """
    earlier = session.execute(
        _earlier_copies(row).where(InboundMessage.request_id == request_id).limit(1)
    ).first()
    return earlier is not None


def match_recipient(
    services: Services, session: Session, row: InboundMessage, mail: ParsedMail
) -> Recipient | None:
    """The recipient whose signed reply token the message carries, if any."""
    tokens = services.tokens
    domain = services.config.reply_domain
    candidates = [tokens.token_from_address(a, domain) for a in row.rcpt_to]
    # Auto-replies and bounces to the bounce address find their thread through the
    # Message-ID we sent (they never record an answer: see the worker).
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
