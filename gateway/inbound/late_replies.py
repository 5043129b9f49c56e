"""A reply read late: whether a held reading must wait for it, and whether it still counts.

The correction window is judged by when replies were received (their durable
``received_at``), not when the worker reads them (``pending``). A reply to a
lawyer's address received inside a held reading's window and not yet read
keeps the window open; an answer received before one already recorded from
the same lawyer (its first reading cut short by a crash) is kept but never
takes effect.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.services import Services
from gateway.store import arrivals, votes
from gateway.store.models import InboundMessage, Recipient, Request, Turn
from gateway.store.reading_models import PendingReading


def unless_superseded(
    session: Session,
    recipient: Recipient,
    row: InboundMessage,
    turn: tuple[dict[str, Any], str, datetime | None],
) -> tuple[dict[str, Any], str, datetime | None]:
    """The turn's (data, kind, due), or those of a superseded answer when an answer of
    this lawyer received after this one is on the record already.

    Then this one, read late (its first reading cut short by a crash), is not their
    last word: it is kept on the record as a reply that decides nothing and never
    takes effect.
    """
    data, kind, due = turn
    if row.attempts <= 1 and session.get_bind().dialect.name == "sqlite":
        # One worker reads SQLite's messages in the order they arrived: only one whose
        # first reading was cut short (a crash, a failure) can come after a later one.
        return data, kind, due
    latest = arrivals.latest_recorded(session, recipient.request_id, recipient.id, row.id)
    if latest is None or latest <= row.received_at:
        return data, kind, due
    kept = dict(data)
    kept["superseded"] = {"read_as": data["decision"]}
    kept["decision"] = None
    kept["notice"] = (
        "Not in effect: a later answer of the same lawyer was received and recorded "
        "before this one was read; the later one stands."
    )
    return kept, "reply", None


def received_of(session: Session, turn_id: int) -> datetime:
    """When the reply a held turn was read from was received."""
    held = session.get(Turn, turn_id)
    assert held is not None
    inbound_id = held.data.get("inbound_id")
    received = arrivals.received_at(session, inbound_id) if inbound_id else None
    return received or held.at


def unread_in_window(services: Services, session: Session, pending_id: int) -> bool:
    """Is a reply to this lawyer's address, received in the reading's window, unread?

    Such a reply may correct the reading, so the window waits for the worker to
    read it. Only messages received after the held reply and before the window's
    end count; the fence makes sure none is being stored unseen right now.
    """
    row = session.get(PendingReading, pending_id)
    if row is None:
        return False
    arrivals.fence(session, exclusive=True)
    since = received_of(session, row.turn_id)
    return _unread_from(services, session, {row.recipient_id}, since, row.due_at)


def answer_in_hand(services: Services, session: Session, request: Request, now: datetime) -> bool:
    """Has a lawyer of the request answered, as far as they know: an answer waits out its
    correction window, or a reply to one of their addresses is received and not yet
    read? Nobody is chased meanwhile (a reminder crossing their answer)."""
    if votes.reading_pending(session, request.id):
        return True
    ids = set(session.scalars(select(Recipient.id).where(Recipient.request_id == request.id)))
    # Their addresses exist from the filing on; the margin keeps a reply stamped in the
    # filing's own instant (a coarse clock).
    return _unread_from(services, session, ids, request.received_at - timedelta(seconds=1), now)


def _unread_from(
    services: Services, session: Session, recipient_ids: set[int], after: datetime, until: datetime
) -> bool:
    """Is a message to one of these recipients' reply addresses, received in
    ``(after, until]``, unread?"""
    tokens, domain = services.tokens, services.config.reply_domain
    for rcpt_to in arrivals.unread_between(session, after, until):
        for address in rcpt_to:
            token = tokens.token_from_address(address, domain)
            verified = tokens.verify(token) if token is not None else None
            if verified is not None and verified.recipient_id in recipient_ids:
                return True
    return False


def request_free(session: Session, pending_id: int) -> bool:
    """Lock the reading's request, unless another transaction holds it (PostgreSQL): then
    False at once, and the reading waits for the next pass. A worker recording a reply
    takes the request's row before the fence; so does the job that ends windows."""
    if session.get_bind().dialect.name != "postgresql":
        return True
    owner = select(PendingReading.request_id).where(PendingReading.id == pending_id)
    query = (
        select(Request.id)
        .where(Request.id == owner.scalar_subquery())
        .with_for_update(skip_locked=True)
    )
    return session.scalar(query) is not None
