"""The audit log, read side: the chain head, selecting entries, and verifying the chain.

``verify`` recomputes every hash from the database, oldest first, and compares the
JSON-lines mirror line by line; it names the first entry that was altered, removed,
inserted or reordered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import String, select, type_coerce
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.store.audit import GENESIS_HASH, entry_hash
from gateway.store.models import AuditEntry, AuditHead


def head(session: Session) -> tuple[int, str]:
    """The chain's last link as (seq, hash); (0, GENESIS_HASH) for an empty log."""
    row = session.get(AuditHead, 1)
    return (row.seq, row.hash) if row is not None else (0, GENESIS_HASH)


def select_entries(
    session: Session,
    *,
    after_seq: int = 0,
    reference: str | None = None,
    event: str | None = None,
    since: datetime | None = None,
    last: int | None = None,
) -> list[AuditEntry]:
    """Entries oldest first; ``event`` ending in ``*`` matches a prefix (``email.*``)."""
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


@dataclass(frozen=True)
class Problem:
    """The first thing wrong with the log, located by seq (and line, in the mirror)."""

    source: str  # database | mirror
    seq: int | None
    kind: str  # altered | removed | inserted | reordered | rewritten
    detail: str
    line: int | None = None

    def describe(self) -> str:
        where = f"entry {self.seq}" if self.seq is not None else "the log"
        if self.line is not None:
            where += f" (line {self.line} of the mirror)"
        return f"{self.source}: {where} {self.kind}: {self.detail}"


@dataclass
class Verdict:
    entries: int = 0
    head_seq: int = 0
    head_hash: str = GENESIS_HASH
    mirror_lines: int | None = None
    # The first fault in the database and the first in the mirror, when there are any.
    problems: list[Problem] = field(default_factory=list)


class _MirrorCursor:
    """Walks audit.jsonl in step with the database rows, stopping at the first mismatch."""

    def __init__(self, path: Path) -> None:
        self.fh = path.open("r", encoding="utf-8")
        self.line_no = 0
        self.problem: Problem | None = None
        self.last_seq = 0
        self.current: dict[str, Any] | None = None
        self._advance()

    def _advance(self) -> None:
        raw = self.fh.readline()
        if not raw:
            self.current = None
            return
        self.line_no += 1
        try:
            value = json.loads(raw)
            if not isinstance(value, dict) or not isinstance(value.get("seq"), int):
                raise ValueError("no seq")
            self.current = value
        except ValueError:
            self.current = None
            self.problem = Problem(
                "mirror", None, "altered", "not a JSON entry with a seq", self.line_no
            )

    def feed(self, entry: dict[str, Any]) -> None:
        if self.problem is not None:
            return
        seq = entry["seq"]
        line = self.current
        if line is None:
            self.problem = Problem(
                "mirror", seq, "removed", f"the mirror ends after line {self.line_no}"
            )
        elif line["seq"] == seq:
            if line != entry:
                self.problem = Problem(
                    "mirror", seq, "altered", "differs from the database", self.line_no
                )
            self.last_seq = seq
            self._advance()
        elif line["seq"] < seq:
            kind = "reordered" if line["seq"] <= self.last_seq else "inserted"
            self.problem = Problem(
                "mirror",
                line["seq"],
                kind,
                f"found where entry {seq} was expected",
                self.line_no,
            )
        elif self._peek_seq() == seq:
            # The expected entry is on the next line: this line is extra or out of place.
            moved = line["seq"] == seq + 1
            self.problem = Problem(
                "mirror",
                seq if moved else line["seq"],
                "reordered" if moved else "inserted",
                f"line {self.line_no} holds entry {line['seq']}, line {self.line_no + 1} "
                f"holds entry {seq}",
                self.line_no,
            )
        else:
            self.problem = Problem(
                "mirror",
                seq,
                "removed",
                f"not in the mirror: line {self.line_no} holds entry {line['seq']} instead",
                self.line_no,
            )

    def _peek_seq(self) -> int | None:
        position = self.fh.tell()
        raw = self.fh.readline()
        self.fh.seek(position)
        try:
            value = json.loads(raw) if raw else None
        except ValueError:
            return None
        return value.get("seq") if isinstance(value, dict) else None

    def finish(self, *, complete: bool) -> None:
        """``complete``: every database entry was fed, so lines left over are extra."""
        if complete and self.problem is None and self.current is not None:
            self.problem = Problem(
                "mirror",
                self.current["seq"],
                "inserted",
                "is beyond the database's last entry",
                self.line_no,
            )
        self.fh.close()


VERIFY_BATCH = 5000


def _sqlite_iso(stored: str) -> str:
    """SQLite's ``YYYY-MM-DD HH:MM:SS.ffffff`` (UTC) as :func:`iso` writes it."""
    if len(stored) == 26 and stored[10] == " ":
        return f"{stored[:10]}T{stored[11:]}Z"
    return iso(datetime.fromisoformat(stored).replace(tzinfo=UTC))


def _entry_problem(
    entry: dict[str, Any], expected: int, prev: str, anchor: tuple[int, str] | None
) -> Problem | None:
    """What is wrong with one entry read from the database, given the one before it."""
    seq, digest, prev_hash = entry["seq"], entry["hash"], entry["prev_hash"]
    if seq != expected:
        return Problem("database", expected, "removed", f"the next entry is {seq}")
    content = (entry["at"], entry["event"], entry["reference"], entry["actor"], entry["details"])
    if entry_hash(seq, *content, prev_hash) != digest:
        return Problem("database", seq, "altered", "its content does not match its hash")
    if prev_hash != prev:
        return Problem(
            "database",
            seq,
            "inserted",
            f"its prev_hash does not match entry {seq - 1} "
            "(an entry was inserted, removed or reordered here)",
        )
    if anchor is not None and seq == anchor[0] and digest != anchor[1]:
        return Problem("database", seq, "rewritten", "its hash differs from the anchor")
    return None


def _head_problem(
    verdict: Verdict, last: int, prev: str, anchor: tuple[int, str] | None
) -> Problem | None:
    """What is wrong with the head row, once every entry up to ``last`` checked out."""
    if verdict.head_seq > last:
        return Problem("database", last + 1, "removed", f"the head names entry {verdict.head_seq}")
    if verdict.head_seq < last:
        return Problem("database", verdict.head_seq + 1, "inserted", "is after the head")
    if verdict.head_hash != prev:
        return Problem("database", last, "altered", "the head's hash differs")
    if anchor is not None and anchor[0] > last:
        return Problem(
            "database", anchor[0], "removed", f"the anchor is past the last entry {last}"
        )
    return None


def verify(
    session: Session, *, mirror: Path | None = None, anchor: tuple[int, str] | None = None
) -> Verdict:
    """Recompute the chain from the database, oldest first, streaming; stop at the first fault.

    With ``mirror``, each line of the JSON-lines file must be the same entry in the
    same order. With ``anchor`` (seq, hash) recorded earlier, the entry at that seq
    must still have that hash, so a chain rewritten from scratch is caught too.
    """
    verdict = Verdict()
    cursor = _MirrorCursor(mirror) if mirror is not None else None
    cols = AuditEntry.__table__.c
    # SQLite keeps times as text; reading that text skips two conversions per entry.
    raw_at = session.get_bind().dialect.name == "sqlite"
    rows = session.execute(
        select(
            cols.seq,
            type_coerce(cols.at, String) if raw_at else cols.at,
            cols.event,
            cols.reference,
            cols.actor,
            # Decoded here with the plain decoder, not the JSON type's result processor.
            type_coerce(cols.details, String),
            cols.prev_hash,
            cols.hash,
        )
        .order_by(cols.seq)
        .execution_options(yield_per=VERIFY_BATCH)
    )
    prev, expected = GENESIS_HASH, 1
    problem: Problem | None = None
    for seq, at, event, reference, actor, details_text, prev_hash, digest in rows:
        details = json.loads(details_text) if isinstance(details_text, str) else details_text
        entry = {
            "seq": seq,
            "at": _sqlite_iso(at) if raw_at else iso(at),
            "event": event,
            "reference": reference,
            "actor": actor,
            "details": details,
            "prev_hash": prev_hash,
            "hash": digest,
        }
        problem = _entry_problem(entry, expected, prev, anchor)
        if problem is not None:
            break
        if cursor is not None:
            cursor.feed(entry)
        prev, expected = digest, seq + 1
        verdict.entries += 1
    rows.close()
    scanned_all = problem is None
    verdict.head_seq, verdict.head_hash = head(session)
    if problem is None:
        problem = _head_problem(verdict, expected - 1, prev, anchor)
    verdict.problems = [problem] if problem is not None else []
    if cursor is not None:
        # After a fault in the database the scan stopped; the mirror is judged up to there.
        cursor.finish(complete=scanned_all)
        verdict.mirror_lines = cursor.line_no
        if cursor.problem is not None:
            verdict.problems.append(cursor.problem)
    return verdict
