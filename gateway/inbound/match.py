"""Which thread a stored message belongs to: its reply token, else the Message-IDs it cites."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Select, bindparam, select
from sqlalchemy.orm import Session

from gateway.inbound.mailparse import ParsedMail
from gateway.services import Services
from gateway.store.models import InboundMessage, Recipient, Request
from gateway.store.prepared import Prepared, connection_of
from gateway.store.thread import note_locked

# Earlier copies of one Message-ID compared by their recipients (a message is stored
# once per reply address, so this is the number of addresses it may have gone to).
MAX_COPIES_CHECKED = 200

_INBOUND = InboundMessage.__table__.c


def _earlier_copies(same: ColumnElement[bool]) -> Select[Any]:
    """Copies of the same message processed already, ``same`` telling which are.

    Whichever copy was stored first: two workers may take two copies in either order,
    and the one that comes second is the duplicate even when it was stored first (it
    would otherwise fail on the unique index of recorded replies at every retry, and
    end as ``failed``).

    Found through the Message-ID (or sha256) index: on SQLite, which keeps no
    statistics of this table, the planner would otherwise take ``ix_inbound_pending``
    for ``state = 'done'`` and read every message processed so far. The state is
    compared as an expression, which no index serves.
    """
    return select(_INBOUND.rcpt_to, _INBOUND.request_id).where(
        same,
        _INBOUND.id != bindparam("this"),
        _INBOUND.state.concat("") == "done",
        # Two comparisons, not NOT IN: a compiled statement has no list parameters.
        _INBOUND.outcome != "unparseable",
        _INBOUND.outcome != "failed",
    )


# Built once (by Message-ID, or else by the bytes): building a statement costs more
# than running it.
_SAME_ID = _earlier_copies(_INBOUND.message_id == bindparam("key"))
_SAME_BYTES = _earlier_copies(_INBOUND.sha256 == bindparam("key"))
# Run on the driver's cursor (``store.prepared``): every message asks once, under the
# write lock.
_COPIES = {
    key: Prepared(
        query.limit(MAX_COPIES_CHECKED), results=(_INBOUND.rcpt_to.type, _INBOUND.request_id.type)
    )
    for key, query in ((True, _SAME_ID), (False, _SAME_BYTES))
}
_COPY_FOR = {
    key: query.where(_INBOUND.request_id == bindparam("request_id")).limit(1)
    for key, query in ((True, _SAME_ID), (False, _SAME_BYTES))
}


def _addresses(rcpt_to: list[str]) -> list[str]:
    return sorted(a.strip().lower() for a in rcpt_to)


class EarlierCopies:
    """What was processed before of the same message, read once for both checks."""

    def __init__(self, session: Session, row: InboundMessage) -> None:
        self._session, self._row = session, row
        self._by_id = bool(row.message_id)
        self._params = {"key": row.message_id or row.sha256, "this": row.id}
        # What this transaction already recorded (an earlier copy in the same batch)
        # is written out first: the statement below runs on the bare connection.
        session.flush()
        result = _COPIES[self._by_id].all(connection_of(session), self._params)
        self._copies = [(list(rcpt_to), request_id) for rcpt_to, request_id in result]

    def duplicate(self) -> bool:
        """The same message was processed before for the same recipients (a redelivery).

        Checked before the message is read, so a redelivery costs one query.
        """
        mine = _addresses(self._row.rcpt_to)
        return any(_addresses(rcpt_to) == mine for rcpt_to, _request in self._copies)

    def duplicate_for(self, request_id: int) -> bool:
        """The same message was processed before for this request.

        Deduplication is per (request, Message-ID): one message sent to the reply
        addresses of two requests is an answer on each, a second copy on the same
        request is not.
        """
        if any(request == request_id for _rcpt_to, request in self._copies):
            return True
        if len(self._copies) < MAX_COPIES_CHECKED:
            # Every earlier copy was read: none of them is for this request.
            return False
        self._session.flush()
        earlier = (
            self._session.connection()
            .execute(_COPY_FOR[self._by_id], {**self._params, "request_id": request_id})
            .first()
        )
        return earlier is not None


def preload_threads(
    services: Services, session: Session, rows: Iterable[InboundMessage]
) -> list[object]:
    """Load, in two queries, the recipients the rows' reply addresses name and their
    requests, so that matching each message finds them in the session instead of
    querying one by one. The caller keeps what this returns while it works: the
    session holds loaded objects only as long as someone else does."""
    recipients = named_recipients(services, session, rows)
    return [*recipients, *lock_requests(session, {r.request_id for r in recipients})]


def named_recipients(
    services: Services, session: Session, rows: Iterable[InboundMessage]
) -> list[Recipient]:
    """The recipients the rows' reply addresses name, in one query. A recipient is never
    changed once written, so this may be read before the write transaction."""
    tokens, domain = services.tokens, services.config.reply_domain
    recipient_ids: set[int] = set()
    for row in rows:
        for address in row.rcpt_to:
            token = tokens.token_from_address(address, domain)
            verified = tokens.verify(token) if token is not None else None
            if verified is not None:
                recipient_ids.add(verified.recipient_id)
    if not recipient_ids:
        return []
    return list(session.scalars(select(Recipient).where(Recipient.id.in_(recipient_ids))))


def lock_requests(session: Session, request_ids: set[int]) -> list[Request]:
    """The requests, loaded and locked in id order, before any is written: two workers
    recording replies to the same threads in one transaction each then wait for each
    other, never in a cycle."""
    if not request_ids:
        return []
    requests = list(
        session.scalars(
            select(Request)
            .where(Request.id.in_(request_ids))
            .order_by(Request.id)
            .with_for_update(of=Request, key_share=True)
        )
    )
    note_locked(session, request_ids)
    return requests


def match_recipient(
    services: Services,
    session: Session,
    row: InboundMessage,
    mail: ParsedMail,
    cited: Sequence[int] | None = None,
) -> Recipient | None:
    """The recipient whose signed reply token the message carries, if any.

    ``cited``: the recipients of the verified tokens in the message's In-Reply-To and
    References, when worked out already (``inbound.ahead``).
    """
    tokens = services.tokens
    domain = services.config.reply_domain
    candidates = [tokens.token_from_address(a, domain) for a in row.rcpt_to]
    if cited is None:
        # Auto-replies and bounces to the bounce address find their thread through the
        # Message-ID we sent (they never record an answer: see the worker).
        for header in ("in-reply-to", "references"):
            candidates.extend(tokens.tokens_in_message_ids(mail.headers.get(header, "")))
    for token in candidates:
        verified = tokens.verify(token) if token is not None else None
        if verified is not None:
            recipient = session.get(Recipient, verified.recipient_id)
            if recipient is not None:
                return recipient
    for recipient_id in cited or ():
        recipient = session.get(Recipient, recipient_id)
        if recipient is not None:
            return recipient
    return None
