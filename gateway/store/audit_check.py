"""The audit log, read side: selecting entries and verifying the tree and its checkpoints.

``verify`` never writes. It streams the integrated entries in leaf order,
recomputes each leaf hash from the entry's content, rebuilds the Merkle tree
leaf by leaf, and at each checkpoint's size compares the root with the
checkpoint, whose signature it checks with the log's keys. Every checkpoint
is recomputed from the same leaves, so each earlier one is a prefix of each
later one: that is what their consistency means, checked for every pair of
consecutive checkpoints at once. A checkpoint saved earlier (``saved``) is
checked the way an outsider would: its signature, then a consistency proof from
it to the newest checkpoint. The JSON-lines mirror is compared line by line. The
first fault found in the database, and the first in the mirror, are named with
the entry, the leaf and what is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gateway.errors import CheckpointError, UnknownKey
from gateway.store import checkpoint as notes
from gateway.store import merkle
from gateway.store.audit import ERASURE_EVENT, fields_of, is_erased_entry, leaf_hash_hex
from gateway.store.audit_faults import Problem
from gateway.store.audit_mac import EntryMacs
from gateway.store.audit_mirror_check import MirrorCursor
from gateway.store.audit_refusal import written_by_the_gateway
from gateway.store.models import AuditCheckpoint, AuditEntry

VERIFY_BATCH = 5000
Keys = Sequence[tuple[str, Ed25519PublicKey]]


def tree_size(session: Session) -> int:
    """The newest checkpoint's size: how many entries are integrated and signed."""
    size = session.scalar(select(func.max(AuditCheckpoint.tree_size)))
    return int(size or 0)


def select_entries(
    session: Session,
    *,
    after_seq: int = 0,
    reference: str | None = None,
    event: str | None = None,
    since: datetime | None = None,
    last: int | None = None,
) -> list[AuditEntry]:
    """Entries in the order they were written; ``event`` ending in ``*`` matches a prefix."""
    query = select(AuditEntry).where(AuditEntry.seq > after_seq)
    if reference:
        query = query.where(AuditEntry.reference == reference.strip().upper())
    if event:
        if event.endswith("*"):
            query = query.where(AuditEntry.event.startswith(event[:-1], autoescape=True))
        else:
            query = query.where(AuditEntry.event == event)
    if since is not None:
        query = query.where(AuditEntry.at >= since)
    if last is not None:
        newest = list(session.scalars(query.order_by(AuditEntry.seq.desc()).limit(last)))
        return newest[::-1]
    return list(session.scalars(query.order_by(AuditEntry.seq)))


@dataclass
class Verdict:
    leaves: int = 0
    pending: int = 0
    checkpoints: int = 0
    tree_size: int = 0
    root: bytes = merkle.EMPTY_ROOT
    mirror_lines: int | None = None
    mirror_behind: int = 0
    mirror_start: int = 0
    problems: list[Problem] = field(default_factory=list)
    # Entries whose content was erased, by seq (their leaf hash is the stored one).
    erased: list[int] = field(default_factory=list)


def _check_notes(rows: list[AuditCheckpoint], keys: Keys) -> Problem | None:
    for row in rows:
        where = f"checkpoint {row.tree_size}"
        try:
            signed = notes.verify_log(row.note, keys)
        except UnknownKey as exc:
            return Problem(
                "checkpoint",
                where,
                "signed by an unknown key",
                f"{exc} (this shell's HFA_AUDIT_SIGNING_KEY or DATA_DIR is not the log's: "
                "give it the log's, or its vkey with --key)",
            )
        except CheckpointError as exc:
            return Problem("checkpoint", where, "altered", str(exc))
        if signed.size != row.tree_size or signed.root.hex() != row.root_hash:
            return Problem(
                "checkpoint", where, "altered", "its size or root differs from the note it signed"
            )
    return None


@dataclass
class _Saved:
    """A checkpoint saved earlier, checked as the tree grows past its size."""

    checkpoint: notes.Checkpoint
    leaves: list[bytes] = field(default_factory=list)


def _parse_saved(note: str, keys: Keys) -> tuple[_Saved | None, Problem | None]:
    try:
        return _Saved(notes.verify_log(note, keys)), None
    except CheckpointError as exc:
        return None, Problem("saved checkpoint", "the file", "unsigned", str(exc))


def _leaf_problem(
    entry: AuditEntry, expected: int, erasures: set[int]
) -> tuple[Problem | None, bytes]:
    index = entry.leaf_index
    assert index is not None
    where = f"entry {entry.seq} (leaf {index})"
    if index != expected:
        gap = f"leaves {expected}..{index - 1}" if index - 1 > expected else f"leaf {expected}"
        return Problem("database", f"{gap}", "removed", f"the next leaf is {index}"), b""
    digest = leaf_hash_hex(fields_of(entry))
    if entry.leaf_hash != digest and is_erased_entry(entry.details) and entry.leaf_hash:
        # Erased: its content is gone, its leaf hash is what the tree and the signed
        # checkpoints check; only an erasure entry may have emptied it.
        if entry.seq not in erasures:
            return Problem(
                "database",
                where,
                "altered",
                "its content was removed and no request.erased entry names it",
            ), b""
        digest = entry.leaf_hash
    if entry.leaf_hash != digest:
        return Problem(
            "database", where, "altered", "its content does not match its leaf hash"
        ), b""
    return None, bytes.fromhex(digest)


def _erasures(session: Session) -> set[int]:
    """The entries that erasure entries say they emptied (integrated yet or not)."""
    named: set[int] = set()
    for details in session.scalars(
        select(AuditEntry.details).where(AuditEntry.event == ERASURE_EVENT)
    ):
        if isinstance(details, dict) and not is_erased_entry(details):
            named.update(s for s in details.get("entries", ()) if isinstance(s, int))
    return named


def _root_problem(size: int, start: int, root: bytes, row: AuditCheckpoint) -> Problem | None:
    if root.hex() == row.root_hash:
        return None
    return Problem(
        "database",
        f"leaves {start}..{size - 1}",
        "altered",
        f"the first {size} leaves do not hash to checkpoint {size}'s root: an entry among "
        "them was altered, removed, inserted or reordered",
    )


# Keyword-only parameters: alike in shape to store.listing.list_requests', not logic.
def verify(
    session: Session,
    keys: Keys,
    *,
    mirror: Path | None = None,
    saved: str | None = None,
    macs: EntryMacs | None = None,
) -> Verdict:
    """Check every leaf, every checkpoint, the mirror, and optionally a saved checkpoint.

    ``macs``: the gateway's entry keys; with them, entries still waiting for the
    sequencer are checked too (one the gateway did not write will be refused).
    """
    verdict = Verdict()
    rows = list(session.scalars(select(AuditCheckpoint).order_by(AuditCheckpoint.tree_size)))
    verdict.checkpoints = len(rows)
    verdict.pending = int(
        session.scalar(
            select(func.count())
            .select_from(AuditEntry)
            .where(AuditEntry.leaf_index.is_(None), AuditEntry.refused.is_(None))
        )
        or 0
    )
    problem = _check_notes(rows, keys)
    target: _Saved | None = None
    saved_problem: Problem | None = None
    if saved is not None:
        target, saved_problem = _parse_saved(saved, keys)
    cursor = MirrorCursor(mirror) if mirror is not None else None
    erasures = _erasures(session)
    by_size = {row.tree_size: row for row in rows}
    edge = merkle.CompactRange()
    last_checked = 0
    entries = session.scalars(
        select(AuditEntry)
        .where(AuditEntry.leaf_index.is_not(None))
        .order_by(AuditEntry.leaf_index)
        .execution_options(yield_per=VERIFY_BATCH)
    )
    for entry in entries:
        if problem is not None:
            break
        problem, leaf = _leaf_problem(entry, edge.size, erasures)
        if is_erased_entry(entry.details):
            verdict.erased.append(entry.seq)
        if problem is not None:
            break
        edge.append(leaf)
        if target is not None:
            target.leaves.append(leaf)
        if cursor is not None:
            cursor.feed({"leaf_index": entry.leaf_index, **fields_of(entry)})
        row = by_size.get(edge.size)
        if row is not None:
            problem = _root_problem(edge.size, last_checked, edge.root(), row)
            last_checked = edge.size
    entries.close()
    verdict.leaves, verdict.root = edge.size, edge.root()
    verdict.tree_size = rows[-1].tree_size if rows else 0
    if problem is None:
        problem = _size_problem(edge.size, verdict.tree_size)
    verdict.problems = [problem] if problem is not None else []
    if target is not None and problem is None:
        saved_problem = _saved_problem(target, edge.size, rows)
    if saved_problem is not None:
        verdict.problems.append(saved_problem)
    refused = _refused_problem(session, macs)
    if refused is not None:
        verdict.problems.append(refused)
    if cursor is not None:
        cursor.finish(complete=problem is None)
        verdict.mirror_lines, verdict.mirror_behind = cursor.line_no, cursor.behind
        verdict.mirror_start = cursor.start
        if cursor.problem is not None:
            verdict.problems.append(cursor.problem)
    return verdict


def _refused_problem(session: Session, macs: EntryMacs | None) -> Problem | None:
    """Rows the sequencer refused to integrate, or will (waiting, without a valid MAC):
    someone wrote to the audit table directly."""
    seqs = list(
        session.scalars(
            select(AuditEntry.seq)
            .where(AuditEntry.refused.is_not(None))
            .order_by(AuditEntry.seq)
            .limit(11)
        )
    )
    if macs is not None:
        waiting = session.scalars(
            select(AuditEntry)
            .where(AuditEntry.leaf_index.is_(None), AuditEntry.refused.is_(None))
            .order_by(AuditEntry.seq)
            .execution_options(yield_per=VERIFY_BATCH)
        )
        seqs += [e.seq for e in waiting if not written_by_the_gateway(macs, e)][: 11 - len(seqs)]
        waiting.close()
    if not seqs:
        return None
    shown = ", ".join(str(s) for s in seqs[:10]) + (", ..." if len(seqs) > 10 else "")
    return Problem(
        "database",
        f"entries {shown}",
        "inserted",
        "written to the audit table by something other than the gateway (no valid MAC); "
        "refused, never signed into the log (audit.entry_refused entries name them)",
    )


def _size_problem(leaves: int, signed: int) -> Problem | None:
    if leaves < signed:
        return Problem(
            "database",
            f"leaves {leaves}..{signed - 1}",
            "removed",
            f"the newest checkpoint covers {signed} leaves, the log holds {leaves}",
        )
    if leaves > signed:
        return Problem(
            "database",
            f"leaves {signed}..{leaves - 1}",
            "inserted",
            f"no checkpoint covers them (the newest covers {signed})",
        )
    return None


def _saved_problem(target: _Saved, leaves: int, rows: list[AuditCheckpoint]) -> Problem | None:
    """The saved checkpoint must be a prefix of the newest one: by a consistency proof."""
    saved = target.checkpoint
    where = f"checkpoint {saved.size}"
    if saved.size > leaves:
        return Problem(
            "saved checkpoint",
            where,
            "removed",
            f"covers {saved.size} leaves, the log holds {leaves}",
        )
    if saved.size == 0:
        return None
    if merkle.root_of(target.leaves[: saved.size]) != saved.root:
        return Problem(
            "saved checkpoint",
            where,
            "rewritten",
            f"the log's first {saved.size} leaves no longer hash to the root it signed: "
            "the log was rewritten since it was saved",
        )
    if not rows:
        return None
    newest = rows[-1]
    # What an outsider holding the two signed roots checks: a consistency proof.
    proof = merkle.consistency_proof(saved.size, target.leaves[: newest.tree_size])
    if not merkle.verify_consistency(
        saved.size, newest.tree_size, saved.root, bytes.fromhex(newest.root_hash), proof
    ):
        return Problem(
            "saved checkpoint",
            where,
            "rewritten",
            f"no consistency proof leads from it to checkpoint {newest.tree_size}",
        )
    return None
