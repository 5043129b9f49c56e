"""Proofs from the stored tree: an entry's inclusion in a checkpoint, and consistency.

An inclusion proof names one entry and the hashes of the subtrees beside its
path to the root (at most ceil(log2(size)) of them), with the signed checkpoint
it leads to. Checked offline with ``merkle.root_from_inclusion`` and
``checkpoint.verify``: nothing else of the log is disclosed.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.errors import ProofUnavailable
from gateway.store import merkle
from gateway.store.audit import fields_of, leaf_data
from gateway.store.models import AuditCheckpoint, AuditEntry


def leaf_hashes(session: Session, size: int) -> list[bytes]:
    """The stored leaf hashes of the first ``size`` leaves, in order."""
    rows = session.scalars(
        select(AuditEntry.leaf_hash)
        .where(AuditEntry.leaf_index < size)
        .order_by(AuditEntry.leaf_index)
        .execution_options(yield_per=10000)
    )
    return [bytes.fromhex(h) for h in rows if h is not None]


def _checkpoint(session: Session, size: int | None) -> AuditCheckpoint:
    query = select(AuditCheckpoint)
    if size is None:
        query = query.order_by(AuditCheckpoint.tree_size.desc()).limit(1)
    else:
        query = query.where(AuditCheckpoint.tree_size == size)
    row = session.scalars(query).first()
    if row is None:
        raise ProofUnavailable(
            "no checkpoint yet" if size is None else f"no checkpoint of size {size}"
        )
    return row


@dataclass(frozen=True)
class InclusionProof:
    entry: dict[str, Any]
    leaf_index: int
    tree_size: int
    hashes: list[bytes]
    checkpoint: str

    def as_json(self) -> dict[str, Any]:
        """The proof in the form RFC 9162 and the C2SP formats spell (base64 hashes)."""
        return {
            "entry": self.entry,
            "leaf_data": leaf_data(self.entry).decode(),
            "leaf_index": self.leaf_index,
            "tree_size": self.tree_size,
            "inclusion_path": [base64.b64encode(h).decode() for h in self.hashes],
            "checkpoint": self.checkpoint,
        }


def inclusion(session: Session, seq: int, size: int | None = None) -> InclusionProof:
    """Entry ``seq``'s inclusion proof in the newest checkpoint (or the one of ``size``)."""
    entry = session.get(AuditEntry, seq)
    if entry is None:
        raise ProofUnavailable(f"no audit entry {seq}")
    if entry.leaf_index is None:
        raise ProofUnavailable(f"entry {seq} is not integrated yet: try again in a second")
    row = _checkpoint(session, size)
    if entry.leaf_index >= row.tree_size:
        raise ProofUnavailable(f"entry {seq} is after checkpoint {row.tree_size}")
    leaves = leaf_hashes(session, row.tree_size)
    ranges = merkle.inclusion_ranges(entry.leaf_index, row.tree_size)
    hashes = merkle.hash_ranges(ranges, merkle.subtree_of(leaves))
    return InclusionProof(fields_of(entry), entry.leaf_index, row.tree_size, hashes, row.note)


def consistency(session: Session, old_size: int, new_size: int | None = None) -> list[bytes]:
    """The consistency proof from checkpoint ``old_size`` to the newest (or ``new_size``)."""
    row = _checkpoint(session, new_size)
    return merkle.consistency_proof(old_size, leaf_hashes(session, row.tree_size))


def newest_note(session: Session) -> str | None:
    """The newest signed checkpoint, as a note; None before the first batch."""
    return session.scalar(
        select(AuditCheckpoint.note).order_by(AuditCheckpoint.tree_size.desc()).limit(1)
    )
