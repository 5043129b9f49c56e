"""What a thread's evidence is made of, read from the record in one read transaction.

Only this thread: its request and turns, the emails it sent (as relayed) and
received (as received), and its audit entries with their inclusion proofs in
the newest signed checkpoint. Proofs are computed from the stored leaf hashes
read once, so a bundle costs one pass over the leaf hashes whatever the
number of entries it proves.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Table, func, or_, select
from sqlalchemy.orm import Session, undefer

from gateway import contract
from gateway.errors import NotFound, NotProvable
from gateway.intake.lookup import status_of
from gateway.store import blobs, merkle, state, witness_report
from gateway.store.audit import fields_of
from gateway.store.audit_mac import EntryMacs
from gateway.store.db import Database
from gateway.store.erasure import erased_marker
from gateway.store.models import (
    ApiKey,
    AuditCheckpoint,
    AuditEntry,
    InboundMessage,
    OutboxItem,
    Request,
)
from gateway.store.sequencer import Sequencer
from gateway.store.signing import LogKeys

# How long an export waits for the sequencer to put the thread's newest entries in a
# signed checkpoint (it runs every HFA_AUDIT_INTEGRATE_SECONDS in a worker).
SETTLE_SECONDS = 15.0


# The hash of no bytes: a message received empty, not one whose bytes were removed.
_EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


@dataclass(frozen=True)
class Email:
    """One email of the thread, byte for byte, and where it came from."""

    direction: str  # outbound | inbound
    at: datetime
    raw: bytes
    envelope_from: str
    to: list[str]
    purpose: str
    outbox_id: int | None = None
    inbound_id: int | None = None
    outcome: str | None = None


@dataclass(frozen=True)
class Proved:
    """An audit entry, its leaf index and the hashes that lead from it to the checkpoint."""

    entry: dict[str, Any]
    leaf_index: int
    path: list[bytes]


@dataclass(frozen=True)
class Collected:
    reference: str
    request: Request
    key_party: dict[str, str]
    thread: dict[str, Any]
    emails: list[Email]
    unsent: int
    entries: list[Proved]
    checkpoint: str
    tree_size: int


def _request(session: Session, reference: str) -> Request:
    number = contract.number_from_reference(reference)
    request = session.get(Request, number) if number is not None else None
    if request is None:
        raise NotFound(f"no request {reference}")
    return request


def _emails(session: Session, request_id: int, sender: str) -> tuple[list[Email], int]:
    """The thread's emails oldest first, and how many were kept without their bytes (sent
    before the gateway kept them, or removed past their retention period)."""
    sent = session.scalars(
        select(OutboxItem)
        .options(undefer(OutboxItem.relayed))
        .where(
            OutboxItem.request_id == request_id,
            OutboxItem.channel == "email",
            OutboxItem.state == "sent",
        )
    )
    emails: list[Email] = []
    unsent = 0
    for item in sent:
        if item.relayed is None or item.sent_at is None:
            unsent += 1  # sent before the gateway kept the bytes it relayed
            continue
        emails.append(
            Email(
                "outbound",
                item.sent_at,
                item.relayed,
                sender,
                [item.target],
                item.purpose,
                outbox_id=item.id,
            )
        )
    for row in session.scalars(
        select(InboundMessage).where(InboundMessage.request_id == request_id)
    ):
        if not row.size and row.sha256 != _EMPTY_SHA256:
            unsent += 1  # its bytes were removed past HFA_RETENTION's raw period
            continue
        emails.append(
            Email(
                "inbound",
                row.received_at,
                blobs.raw_of(session, row),
                row.mail_from,
                list(row.rcpt_to),
                "reply",
                inbound_id=row.id,
                outcome=row.outcome,
            )
        )
    emails.sort(key=lambda e: (e.at, e.outbox_id or 0, e.inbound_id or 0))
    return emails, unsent


def _entries(session: Session, reference: str, received: list[datetime]) -> list[AuditEntry]:
    """The entries naming the thread, and the ``inbound.received`` entries of its messages.

    Those were written before any thread was known (no reference), in the transaction
    that stored the message, at its ``received_at``. Two queries, each on its index.
    """
    named = list(session.scalars(select(AuditEntry).where(AuditEntry.reference == reference)))
    arrived: list[AuditEntry] = []
    if received:
        arrived = list(
            session.scalars(
                select(AuditEntry).where(
                    AuditEntry.event == "inbound.received",
                    AuditEntry.reference.is_(None),
                    AuditEntry.at.in_(received),
                )
            )
        )
    return sorted(named + arrived, key=lambda e: e.seq)


def _mine(entry: AuditEntry, reference: str, inbound_ids: set[int]) -> bool:
    if entry.reference == reference:
        return True
    return (entry.details or {}).get("inbound_id") in inbound_ids


def _prove(
    session: Session, entries: list[AuditEntry], witnessed: bool
) -> tuple[list[Proved], str, int]:
    newest = session.scalars(
        select(AuditCheckpoint).order_by(AuditCheckpoint.tree_size.desc()).limit(1)
    ).first()
    late = [
        e.seq
        for e in entries
        if e.leaf_index is None or newest is None or e.leaf_index >= newest.tree_size
    ]
    if newest is None or late:
        raise NotProvable(f"audit entries {late[:5]} are in no signed checkpoint yet")
    cosigned = _witnessed(session, entries) if witnessed else None
    note, size = cosigned or (newest.note, newest.tree_size)
    subtree = shared_subtrees(_leaf_hashes(session, size))
    proved = []
    for entry in entries:
        assert entry.leaf_index is not None
        ranges = merkle.inclusion_ranges(entry.leaf_index, size)
        proved.append(
            Proved(fields_of(entry), entry.leaf_index, merkle.hash_ranges(ranges, subtree))
        )
    return proved, note, size


def _witnessed(session: Session, entries: list[AuditEntry]) -> tuple[str, int] | None:
    """The checkpoint the witnesses cosigned (with their cosignatures), where it covers
    every entry: the bundle then proves them against a checkpoint others have checked."""
    kept = state.get(session, witness_report.COSIGNED)
    if not kept or not all(
        e.leaf_index is not None and e.leaf_index < int(kept["size"]) for e in entries
    ):
        return None
    return str(kept["note"]), int(kept["size"])


_LEAVES = cast(Table, AuditEntry.__table__).c


def _leaf_hashes(session: Session, size: int) -> list[bytes]:
    """The first ``size`` leaf hashes in order, read as plain rows (no ORM: a large log has
    millions, and the ORM's bookkeeping per row cost more than the read)."""
    rows = session.connection().execute(
        select(_LEAVES.leaf_hash).where(_LEAVES.leaf_index < size).order_by(_LEAVES.leaf_index)
    )
    return [bytes.fromhex(h) for (h,) in rows]


def shared_subtrees(leaves: list[bytes]) -> Callable[[int, int], bytes]:
    """A range hasher for many proofs in one tree: each subtree is hashed once.

    The proofs of a thread's entries ask for the same large subtrees (the tree's left
    half, say) again and again: hashed from their leaves each time, a hundred proofs in
    a log of a million entries cost a hundred million hashes. The tree's levels are
    hashed once instead (``merkle.Levels``), about one hash per leaf in all.
    """
    return merkle.Levels(leaves).subtree


def _key_party(session: Session, request: Request) -> dict[str, str]:
    if not request.api_key_name:
        return {}
    key = session.scalars(select(ApiKey).where(ApiKey.name == request.api_key_name)).first()
    if key is None:
        return {}
    return {k: v for k, v in (("client", key.client), ("matter", key.matter)) if v}


def collect(session: Session, reference: str, sender: str, *, witnessed: bool = False) -> Collected:
    """Everything of one thread the bundle holds; NotProvable while entries await a checkpoint.

    ``witnessed``: witnesses are configured, so the checkpoint they cosigned is proved
    against where it covers the thread."""
    request = _request(session, reference)
    reference = request.reference
    erased = erased_marker(request)
    if erased is not None:
        # What a bundle proves is gone; the bundles made before still verify.
        raise NotProvable(
            f"{reference}'s content was erased on {erased['at']} ({erased['reason']}): "
            "a bundle made before the erasure still verifies"
        )
    emails, unsent = _emails(session, request.id, sender)
    inbound = {e.inbound_id: e.at for e in emails if e.inbound_id is not None}
    entries = [
        e
        for e in _entries(session, reference, list(inbound.values()))
        if _mine(e, reference, set(inbound))
    ]
    proved, note, size = _prove(session, entries, witnessed)
    return Collected(
        reference,
        request,
        _key_party(session, request),
        status_of(session, request),
        emails,
        unsent,
        proved,
        note,
        size,
    )


def pending_entries(session: Session, reference: str) -> int:
    """The thread's entries no signed checkpoint covers yet."""
    newest = session.scalar(select(func.max(AuditCheckpoint.tree_size))) or 0
    count = session.scalar(
        select(func.count())
        .select_from(AuditEntry)
        .where(
            AuditEntry.reference == reference,
            or_(AuditEntry.leaf_index.is_(None), AuditEntry.leaf_index >= newest),
        )
    )
    return int(count or 0)


def settle(
    db: Database,
    keys: LogKeys,
    mirror: Path | None,
    reference: str,
    now: Any,
    *,
    macs: EntryMacs,
) -> None:
    """Wait until a signed checkpoint covers the thread's entries.

    The running gateway's sequencer does it within a second; with no gateway
    running, this process integrates the waiting entries itself, as the
    sequencer would (one leader at a time, so never beside a live one).
    """
    sequencer = Sequencer(db, keys, mirror, macs=macs)
    deadline = time.monotonic() + SETTLE_SECONDS
    try:
        while True:
            with db.read_only() as session:
                if not pending_entries(session, reference):
                    return
            if sequencer.lead() and sequencer.step(now()):
                continue  # integrated here: checked again at once
            if time.monotonic() > deadline:
                raise NotProvable(
                    f"{reference}'s newest audit entries are in no signed checkpoint after "
                    f"{SETTLE_SECONDS:.0f} s: is the sequencer stuck? ('hfa audit verify')"
                )
            time.sleep(0.1)
    finally:
        sequencer.let_go()
