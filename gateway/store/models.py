"""The tables: the record (requests, turns), the mail in and out, and the audit log.

Turns, inbound messages and audit entries are append-only: no code path
updates or deletes them (inbound rows only move through their processing
states; their raw bytes never change), but one the law asks for: erasure and
retention (``store.erasure``) replace texts by their hashes and remove bytes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from gateway.store.utc_time import UtcDateTime

# SQLite's INTEGER PRIMARY KEY is its rowid only when spelled INTEGER, so the
# 64-bit ids use BigInteger on PostgreSQL and Integer on SQLite.
Id = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, datetime: UtcDateTime}  # noqa: RUF012


class Request(Base):
    """One request from an agent; ``id`` is the number in its reference (HFA-00042)."""

    __tablename__ = "requests"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    category: Mapped[str] = mapped_column(String(32))
    urgency: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    # The request's own fields, as the agent sent them (extra properties included).
    fields: Mapped[dict[str, Any]]
    reply_to: Mapped[str | None] = mapped_column(Text)
    deadline_at: Mapped[datetime | None]
    access_token_hash: Mapped[str] = mapped_column(String(64))
    read_capability_hash: Mapped[str] = mapped_column(String(64), unique=True)
    idempotency_key: Mapped[str | None] = mapped_column(String(255), unique=True)
    idempotency_fingerprint: Mapped[str | None] = mapped_column(String(64))
    api_key_name: Mapped[str | None] = mapped_column(String(128))
    received_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    first_human_reply_at: Mapped[datetime | None]
    reminders_sent: Mapped[int] = mapped_column(Integer, default=0)
    next_reminder_at: Mapped[datetime | None] = mapped_column(index=True)
    deadline_noticed: Mapped[int] = mapped_column(Integer, default=0)
    escalated: Mapped[int] = mapped_column(Integer, default=0)

    @property
    def reference(self) -> str:
        return f"HFA-{self.id:05d}"


class Turn(Base):
    """One entry of a thread, oldest first by ``seq``; never edited."""

    __tablename__ = "turns"
    __table_args__ = (UniqueConstraint("request_id", "seq"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("requests.id"))
    seq: Mapped[int] = mapped_column(Integer)
    author: Mapped[str] = mapped_column(String(16))
    kind: Mapped[str] = mapped_column(String(32))
    at: Mapped[datetime]
    body: Mapped[str] = mapped_column(Text)
    # Structure beyond the contract's four keys: decision, from, message_id, elided...
    data: Mapped[dict[str, Any]]


class Recipient(Base):
    """A (request, address) pair; its id is what a reply token signs."""

    __tablename__ = "recipients"
    __table_args__ = (UniqueConstraint("request_id", "address"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("requests.id"), index=True)
    address: Mapped[str] = mapped_column(String(320))
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime]


class OutboxItem(Base):
    """Something to deliver: an email or a webhook call. pending -> sent | dead."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_due", "state", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    channel: Mapped[str] = mapped_column(String(16))  # email | webhook
    purpose: Mapped[str] = mapped_column(String(32))  # request, follow_up, receipt, push...
    request_id: Mapped[int | None] = mapped_column(ForeignKey("requests.id"), index=True)
    recipient_id: Mapped[int | None] = mapped_column(ForeignKey("recipients.id"))
    target: Mapped[str] = mapped_column(Text)  # email address or URL
    message_id: Mapped[str | None] = mapped_column(String(255), index=True)
    payload: Mapped[dict[str, Any]]
    state: Mapped[str] = mapped_column(String(16))  # pending | sent | dead
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime]
    lease_until: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]
    sent_at: Mapped[datetime | None]
    # Attempts count from here (created_at, or when ops retried a dead item); the item
    # is dead once the channel's retry period has passed since then.
    retry_since: Mapped[datetime | None]
    # When the thread was told this delivery is delayed (once per retry period).
    delay_noticed_at: Mapped[datetime | None]
    # Who brought a dead item back with 'hfa outbox retry' (told on the thread once sent).
    revived_by: Mapped[str | None] = mapped_column(String(320))
    # An email as it was handed to the relay or the Maildir (DKIM signature included),
    # kept once it was accepted: the evidence of what the lawyer received.
    relayed: Mapped[bytes | None] = mapped_column(LargeBinary, deferred=True)
    relayed_sha256: Mapped[str | None] = mapped_column(String(64))


class InboundMessage(Base):
    """Every message the SMTP listener accepted, kept whole with its outcome."""

    __tablename__ = "inbound"
    __table_args__ = (
        Index("ix_inbound_pending", "state", "id"),
        # Two workers racing on two copies of one reply cannot both record it on one
        # request: the loser's transaction fails here and its retry finds a duplicate.
        # Per request, so one message sent to two requests' reply addresses answers both.
        Index(
            "uq_inbound_recorded_request_message_id",
            "request_id",
            "message_id",
            unique=True,
            sqlite_where=text("outcome = 'recorded'"),
            postgresql_where=text("outcome = 'recorded'"),
        ),
    )

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    received_at: Mapped[datetime]
    peer: Mapped[str] = mapped_column(String(128))
    mail_from: Mapped[str] = mapped_column(Text)
    rcpt_to: Mapped[list[str]] = mapped_column(JSON)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    size: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    message_id: Mapped[str | None] = mapped_column(String(998), index=True)
    state: Mapped[str] = mapped_column(String(16))  # pending | done
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_until: Mapped[datetime | None]
    outcome: Mapped[str | None] = mapped_column(String(32), index=True)
    outcome_detail: Mapped[str | None] = mapped_column(Text)
    request_id: Mapped[int | None] = mapped_column(ForeignKey("requests.id"), index=True)
    recipient_id: Mapped[int | None] = mapped_column(ForeignKey("recipients.id"))
    turn_id: Mapped[int | None] = mapped_column(ForeignKey("turns.id"))
    processed_at: Mapped[datetime | None]


class Attachment(Base):
    """A file that came with an inbound message; the bytes are kept."""

    __tablename__ = "attachments"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    inbound_id: Mapped[int] = mapped_column(ForeignKey("inbound.id"), index=True)
    filename: Mapped[str] = mapped_column(Text)
    content_type: Mapped[str] = mapped_column(String(255))
    size: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    # Empty when the file is over 256 KB: then it is kept apart (``store.blobs``).
    content: Mapped[bytes] = mapped_column(LargeBinary)


class AuditEntry(Base):
    """One entry of the audit log, written by the transaction whose change it records.

    ``seq`` numbers entries as they are written; ``leaf_index`` is the entry's place
    in the Merkle tree, set once by the sequencer when it integrates the entry
    (None until then), with ``leaf_hash`` = SHA-256(0x00 || the entry's canonical
    JSON). ``xid`` is the writing transaction's id on PostgreSQL (kept for
    forensics: which entries one transaction wrote). ``prev_hash`` and ``hash`` are kept only by entries of the hash chain
    that earlier releases wrote; they are part of those entries' leaves.
    """

    __tablename__ = "audit"
    __table_args__ = (
        Index(
            "ix_audit_pending",
            "seq",
            sqlite_where=text("leaf_index IS NULL"),
            postgresql_where=text("leaf_index IS NULL"),
        ),
        Index("uq_audit_mac", "mac", unique=True),
    )

    seq: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    at: Mapped[datetime]
    event: Mapped[str] = mapped_column(String(64), index=True)
    reference: Mapped[str | None] = mapped_column(String(32), index=True)
    actor: Mapped[str] = mapped_column(String(320))
    details: Mapped[dict[str, Any]]
    xid: Mapped[int | None] = mapped_column(BigInteger)
    leaf_index: Mapped[int | None] = mapped_column(BigInteger, unique=True)
    leaf_hash: Mapped[str | None] = mapped_column(String(64))
    prev_hash: Mapped[str | None] = mapped_column(String(64))
    hash: Mapped[str | None] = mapped_column(String(64))
    # The writing transaction's MAC (``store.audit_mac``): nonce:hmac, unique, so a copied
    # row cannot be inserted. Not part of the leaf: checked before integration.
    mac: Mapped[str | None] = mapped_column(String(96))
    # Why the sequencer refused to integrate this row (it was not written by the gateway).
    refused: Mapped[str | None] = mapped_column(String(300))


class AuditCheckpoint(Base):
    """A signed checkpoint: the tree's size and root as of one batch, and the note signed.

    ``edge`` is the tree's right edge (``merkle.CompactRange``) at that size, so the
    next batch continues from it without reading the tree back.
    """

    __tablename__ = "audit_checkpoints"

    tree_size: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    root_hash: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime]
    note: Mapped[str] = mapped_column(Text)
    edge: Mapped[list[str]] = mapped_column(JSON)


class ApiKey(Base):
    """An agent's key; only its hash is stored."""

    __tablename__ = "api_keys"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]
    # For whom the key's agent works: shown to the lawyer as set by the key, not claimed.
    client: Mapped[str | None] = mapped_column(Text, nullable=True)
    matter: Mapped[str | None] = mapped_column(Text, nullable=True)


class CompatCall(Base):
    """A request filed through a compatibility API (HumanLayer, A2H), under the caller's id.

    ``document`` is the object as the caller sent it, echoed back with its
    status filled from the thread.
    """

    __tablename__ = "compat_calls"
    __table_args__ = (UniqueConstraint("protocol", "external_id"),)

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    protocol: Mapped[str] = mapped_column(String(32))  # function_call | contact_request | a2h
    external_id: Mapped[str] = mapped_column(String(255))
    request_id: Mapped[int] = mapped_column(ForeignKey("requests.id"), index=True)
    api_key_name: Mapped[str | None] = mapped_column(String(128))
    document: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]


class ReadLink(Base):
    """A read-only thread link minted for pushes; only its hash is stored."""

    __tablename__ = "read_links"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    request_id: Mapped[int] = mapped_column(ForeignKey("requests.id"), index=True)
    capability_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]


class Schedule(Base):
    """Named periodic jobs; a row lock makes each run happen once across processes."""

    __tablename__ = "schedules"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    next_run_at: Mapped[datetime]


class Heartbeat(Base):
    """One running (or stopped) ``hfa serve`` process: its roles, when it was last seen.

    ``keys`` holds fingerprints of the reply-token keys and webhook secrets it
    uses, never the keys: a process whose keys cannot verify the others'
    tokens is refused at start.
    """

    __tablename__ = "heartbeats"

    id: Mapped[int] = mapped_column(Id, primary_key=True, autoincrement=True)
    process: Mapped[str] = mapped_column(String(200), unique=True)
    roles: Mapped[str] = mapped_column(String(64))  # comma-separated
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    version: Mapped[str] = mapped_column(String(32))
    started_at: Mapped[datetime]
    seen_at: Mapped[datetime] = mapped_column(index=True)
    stopped_at: Mapped[datetime | None]
    keys: Mapped[dict[str, Any]]


class GatewayState(Base):
    """Named facts about the whole gateway that outlive processes (access state, key use)."""

    __tablename__ = "gateway_state"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[dict[str, Any]]
    updated_at: Mapped[datetime]
