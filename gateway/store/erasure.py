"""Erasing a request's content (the right to erasure) while its record stays provable.

The record is append-only, with one exception the law makes: a person may have
their data erased. Erasure replaces each text of a request by its SHA-256 (the
request's fields, its turns' bodies and their text data, its emails as sent, the
messages received with their attachments, the agent's compatibility documents) and
removes the bytes; what the record says happened (who, when, which decision, which
status) stays. Whoever still holds a text can show it was the one erased by its hash.

The audit log's entries of the request keep their place, their event, their actor and
their reference; their ``details`` become ``{"erased_sha256": <hash of the details>}``.
Their leaf hash, stored when the entry was integrated, stays: the tree, its signed
checkpoints and every proof already handed out (evidence bundles) still verify,
and ``request.erased`` names each entry so erased, so that ``hfa audit verify`` tells
an erasure from an edit (an entry emptied without such an entry is a fault).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import delete, exists, or_, select, text, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from gateway.store.a2h_models import A2hInteraction
from gateway.store.audit import ERASED_KEY, ERASURE_EVENT, AuditLog, canonical, is_erased_entry
from gateway.store.blobs import BlobChunk
from gateway.store.db import Database
from gateway.store.models import (
    Attachment,
    AuditEntry,
    CompatCall,
    InboundMessage,
    OutboxItem,
    Request,
    Turn,
)
from gateway.store.policy_models import RequestPolicy, Vote
from gateway.store.thread import add_turn

log = logging.getLogger("gateway.erasure")

EVENT = ERASURE_EVENT
# Where a request's content is kept: the tables reclaimed after an erasure.
ERASED_TABLES = (
    "requests",
    "turns",
    "inbound",
    "attachments",
    "blob_chunks",
    "outbox",
    "compat_calls",
    "a2h_interactions",
    "votes",
    "request_policies",
    "audit",
)
# Values that say what happened, not what anyone wrote: kept as they are.
KEPT_KEYS = frozenset(
    {
        "decision",
        "read_from",
        "read_as",
        "kind",
        "status",
        "from",
        "to",
        "by",
        "author",
        "role",
        "purpose",
        "channel",
        "outcome",
        "sha256",
        "content_type",
        "message_id",
        "language",
        "answer",
        "urgency",
        "category",
        "reference",
        "at",
        "takes_effect_at",
        "deadline",
        "erased",
    }
)


def sha256_text(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def placeholder(value: str) -> str:
    """What an erased text becomes: its hash, so a copy held elsewhere can be matched."""
    return f"[erased sha256:{sha256_text(value)}]"


def is_placeholder(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("[erased sha256:")


def scrub(value: Any) -> Any:
    """``value`` with every text replaced by its placeholder, keys in KEPT_KEYS aside."""
    if isinstance(value, dict):
        return {k: (v if k in KEPT_KEYS else scrub(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, str) and value and not is_placeholder(value):
        return placeholder(value)
    return value


def erased_details(details: Any) -> dict[str, str]:
    """An audit entry's details once erased: the hash of their canonical JSON."""
    return {ERASED_KEY: hashlib.sha256(canonical(details)).hexdigest()}


def erased_marker(request: Request) -> dict[str, Any] | None:
    """When, by whom and why a request was erased; None if it was not."""
    marker = (request.fields or {}).get("erased")
    return marker if isinstance(marker, dict) and "at" in marker else None


@dataclass
class Erased:
    reference: str
    turns: int = 0
    messages: int = 0
    attachments: int = 0
    emails: int = 0
    entries: list[int] = field(default_factory=list)


def erase_request(
    session: Session, audit: AuditLog, request: Request, *, at: datetime, by: str, reason: str
) -> Erased:
    """Erase ``request``'s content in the caller's transaction; the thread says so."""
    done = Erased(request.reference)
    marker = {"at": at.isoformat(), "by": by, "reason": reason}
    request.fields = {**scrub(dict(request.fields or {})), "erased": marker}
    for turn in session.scalars(select(Turn).where(Turn.request_id == request.id)):
        session.execute(
            update(Turn)
            .where(Turn.id == turn.id)
            .values(body=scrub(turn.body), data=scrub(dict(turn.data or {})))
        )
        done.turns += 1
    inbound_ids = _erase_messages(session, request.id, done)
    outbox_ids = _erase_emails(session, request.id, done)
    _erase_documents(session, request.id)
    done.entries = _erase_entries(session, request, inbound_ids, outbox_ids)
    add_turn(
        session,
        request,
        author="system",
        kind="erased",
        at=at,
        body=f"The content of this request was erased by {by}: {reason}",
        data={"erased": marker, "turns": done.turns},
    )
    audit.append(
        session,
        EVENT,
        at=at,
        actor=by,
        reference=request.reference,
        details={
            "reason": reason,
            "entries": done.entries,
            "turns": done.turns,
            "messages": done.messages,
            "attachments": done.attachments,
            "emails": done.emails,
        },
    )
    return done


def _erase_messages(session: Session, request_id: int, done: Erased) -> list[int]:
    rows = list(
        session.scalars(select(InboundMessage).where(InboundMessage.request_id == request_id))
    )
    ids = [row.id for row in rows]
    digests = {row.sha256 for row in rows}
    for row in rows:
        row.raw, row.size = b"", 0
        if row.outcome_detail:
            row.outcome_detail = placeholder(row.outcome_detail)
    done.messages = len(rows)
    if ids:
        for attachment in session.scalars(select(Attachment).where(Attachment.inbound_id.in_(ids))):
            digests.add(attachment.sha256)
            attachment.content, attachment.size = b"", 0
            attachment.filename = placeholder(attachment.filename)
            done.attachments += 1
    session.flush()
    _drop_unowned_chunks(session, digests)
    return ids


def _drop_unowned_chunks(session: Session, digests: Iterable[str]) -> None:
    """Chunks kept apart for these values, unless a row not erased still owns the same bytes."""
    for digest in digests:
        owned = session.scalar(
            select(
                or_(
                    exists().where(InboundMessage.sha256 == digest, InboundMessage.size > 0),
                    exists().where(Attachment.sha256 == digest, Attachment.size > 0),
                )
            )
        )
        if not owned:
            session.execute(delete(BlobChunk).where(BlobChunk.sha256 == digest))


def _erase_emails(session: Session, request_id: int, done: Erased) -> list[int]:
    items = list(session.scalars(select(OutboxItem).where(OutboxItem.request_id == request_id)))
    for item in items:
        item.payload = scrub(dict(item.payload or {}))
        item.relayed = None
        if item.last_error:
            item.last_error = placeholder(item.last_error)
    done.emails = len(items)
    return [item.id for item in items]


def _erase_documents(session: Session, request_id: int) -> None:
    for call in session.scalars(select(CompatCall).where(CompatCall.request_id == request_id)):
        call.document = scrub(dict(call.document or {}))
    for a2h in session.scalars(
        select(A2hInteraction).where(A2hInteraction.request_id == request_id)
    ):
        a2h.document = scrub(dict(a2h.document or {}))
    for vote in session.scalars(select(Vote).where(Vote.request_id == request_id)):
        vote.conditions = scrub(list(vote.conditions or []))
    policy = session.get(RequestPolicy, request_id)
    if policy is not None:
        policy.state = _scrub_conditions(policy.state)


def _scrub_conditions(value: Any) -> Any:
    """The policy's state as agents read it: only the conditions lawyers wrote are text."""
    if isinstance(value, dict):
        return {
            k: (scrub(v) if k == "conditions" else _scrub_conditions(v)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_scrub_conditions(v) for v in value]
    return value


def _erase_entries(
    session: Session, request: Request, inbound_ids: list[int], outbox_ids: list[int]
) -> list[int]:
    """The request's audit entries, and those of its messages and emails, reduced to hashes."""
    query = select(AuditEntry).where(AuditEntry.reference == request.reference)
    entries = list(session.scalars(query))
    wanted_inbound, wanted_outbox = set(inbound_ids), set(outbox_ids)
    if wanted_inbound or wanted_outbox:
        # Entries written before the message was matched to the request carry no reference.
        for entry in session.scalars(
            select(AuditEntry).where(
                AuditEntry.reference.is_(None),
                AuditEntry.at >= request.received_at,
                or_(AuditEntry.event.startswith("inbound."), AuditEntry.event.startswith("email.")),
            )
        ):
            details = entry.details or {}
            if details.get("inbound_id") in wanted_inbound or (
                details.get("outbox_id") in wanted_outbox
            ):
                entries.append(entry)
    seqs = []
    for entry in entries:
        if entry.event == EVENT or is_erased_entry(entry.details):
            continue
        session.execute(
            update(AuditEntry)
            .where(AuditEntry.seq == entry.seq)
            .values(details=erased_details(entry.details))
        )
        seqs.append(entry.seq)
    return sorted(seqs)


def purge_raw(session: Session, before: datetime) -> int:
    """Messages received before ``before``: their bytes removed, their hash and outcome kept;
    emails sent before it: the copy as relayed removed (its hash kept)."""
    rows = list(
        session.scalars(
            select(InboundMessage).where(
                InboundMessage.received_at < before,
                InboundMessage.state == "done",
                InboundMessage.size > 0,
            )
        )
    )
    for row in rows:
        row.raw, row.size = b"", 0
    session.flush()
    _drop_unowned_chunks(session, {row.sha256 for row in rows})
    sent = session.execute(
        update(OutboxItem)
        .where(OutboxItem.created_at < before, OutboxItem.relayed.is_not(None))
        .values(relayed=None)
        .execution_options(synchronize_session=False)
    )
    return len(rows) + int(getattr(sent, "rowcount", 0) or 0)


def purge_attachments(session: Session, before: datetime) -> int:
    """Attachments of messages received before ``before``: bytes removed, name and hash kept."""
    rows = list(
        session.scalars(
            select(Attachment)
            .join(InboundMessage, InboundMessage.id == Attachment.inbound_id)
            .where(InboundMessage.received_at < before, Attachment.size > 0)
        )
    )
    for row in rows:
        row.content, row.size = b"", 0
    session.flush()
    _drop_unowned_chunks(session, {row.sha256 for row in rows})
    return len(rows)


def expired_requests(session: Session, before: datetime, final: Iterable[str]) -> list[int]:
    """Requests in a final status, untouched since ``before``, not yet erased."""
    candidates = session.scalars(
        select(Request)
        .where(Request.status.in_(tuple(final)), Request.updated_at < before)
        .order_by(Request.id)
    )
    return [r.id for r in candidates if erased_marker(r) is None]


def reclaim(db: Database, tables: Iterable[str] = ERASED_TABLES) -> bool:
    """Make freed space hold no erased bytes: SQLite rewrites its file and empties its
    write-ahead log, PostgreSQL vacuums the tables whose rows changed. False when the
    database was too busy: the next retention run tries again."""
    try:
        if db.is_sqlite:
            with db.writing_alone():
                raw = db.engine.raw_connection()
                try:
                    cursor = raw.cursor()
                    cursor.execute("VACUUM")
                    cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    busy = cursor.fetchone()
                    cursor.close()
                finally:
                    raw.close()
            return not (busy and busy[0])
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            for name in tables:
                conn.execute(text(f'VACUUM "{name}"'))
        return True
    except DBAPIError as exc:
        log.warning("freed space not reclaimed yet (%s); the next retention run tries again", exc)
        return False
