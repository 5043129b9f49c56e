"""What the worker reads of a chunk of messages before the write transaction that records it.

The write lock (on SQLite, one for every process) is held only for what must be
read and written under it. Read before it, while the lock is free:

- what a message says of itself (its loop mark, automatic kind, Message-ID, the
  threads its references cite, the text its turn records and whether that says
  anything): it depends on its bytes and the gateway's keys only;
- the messages' rows: a row changes only by the worker that holds its lease;
- the recipients their reply addresses name: a recipient is never changed.

The requests, which other writers change, are read (and, on PostgreSQL, locked)
under the lock.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, defer

from gateway.inbound.mailparse import ParsedMail
from gateway.inbound.match import named_recipients
from gateway.inbound.reading import Parsed
from gateway.outbound.compose import LOOP_HEADER
from gateway.replies import AutomaticKind, detect_automatic
from gateway.services import Services
from gateway.store.models import InboundMessage, Recipient


@dataclass(frozen=True)
class Ahead:
    """A message's own loop mark, automatic kind, Message-ID and the threads it cites."""

    own_loop: bool
    automatic: AutomaticKind | None
    their_message_id: str | None
    # The recipients whose signed reply tokens its In-Reply-To and References carry, in
    # the order they are tried after the reply addresses it was sent to.
    cited: tuple[int, ...]


# A message as read before the transaction: its parse, and what it says of itself.
Read = tuple[Parsed | None, Ahead | None]
# The chunk's rows and the recipients they name.
Known = tuple[dict[int, InboundMessage], list[Recipient]]


def read_ahead(services: Services, mail: ParsedMail) -> Ahead:
    headers = mail.headers
    tokens = services.tokens
    loop = headers.get(LOOP_HEADER.lower(), "").strip().lower() == services.config.reply_domain
    cited: list[int] = []
    for header in ("in-reply-to", "references"):
        for token in tokens.tokens_in_message_ids(headers.get(header, "")):
            verified = tokens.verify(token)
            if verified is not None:
                cited.append(verified.recipient_id)
    return Ahead(
        own_loop=loop,
        automatic=detect_automatic(headers, mail.subject, headers.get("content-type")),
        their_message_id=headers.get("message-id"),
        cited=tuple(cited),
    )


def ahead_of(services: Services, mail: Parsed | None) -> Ahead | None:
    """What the message says of itself; None when it is not a readable email, or reading
    it failed (then it is read again under the lock, where a failure is that message's
    alone: undone and retried like any crash)."""
    if not isinstance(mail, ParsedMail):
        return None
    try:
        return read_ahead(services, mail)
    except Exception:
        return None


def chunk_rows(session: Session, chunk: list[int]) -> dict[int, InboundMessage]:
    """The chunk's rows in one query; the raw bytes are read only by the few that need them."""
    query = (
        select(InboundMessage)
        .where(InboundMessage.id.in_(chunk))
        .options(defer(InboundMessage.raw, raiseload=False))
    )
    return {row.id: row for row in session.scalars(query)}


def read_rows(services: Services, chunk: list[int]) -> Known:
    """The messages' rows and their recipients, read in a transaction of their own; the
    write transaction takes them in as they are (``Session.add``: no statement)."""
    with services.db.read_only() as session:
        rows = chunk_rows(session, chunk)
        return rows, named_recipients(services, session, rows.values())
