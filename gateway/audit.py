"""The audit log: typed events in a hash chain, mirrored to audit.jsonl.

Each entry's hash is SHA-256 over a canonical JSON encoding of the entry and
the previous entry's hash, so altering, removing, inserting or reordering
any entry breaks every hash after it. Entries are appended in the same
transaction as the change they describe; the JSON-lines mirror is written
after that transaction commits, one flushed line per entry.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import String, bindparam, insert, select, type_coerce, update
from sqlalchemy import event as sa_event
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.models import AuditEntry, AuditHead

GENESIS_HASH = "0" * 64
# Where a transaction keeps the chain head it locked (in Session.info).
_HEAD = "hfa_audit_head"
_HOOKED = "hfa_audit_hooked"
_INSERT_ENTRY = insert(AuditEntry)
_MOVE_HEAD = (
    update(AuditHead)
    .where(AuditHead.id == 1)
    .values(seq=bindparam("new_seq"), hash=bindparam("new_hash"))
)

log = logging.getLogger("gateway.audit")

# Keys whose values are never written, whatever code path hands them in.
_SECRET_KEYS = ("token", "secret", "password", "api_key", "authorization")


def _redact(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: ("[redacted]" if any(s in k.lower() for s in _SECRET_KEYS) else _redact(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_redact(v) for v in value]
    return value


# One encoder, reused: json.dumps with options builds a new encoder on every call,
# which is most of the cost when millions of entries are verified.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(entry: dict[str, Any]) -> bytes:
    return _CANONICAL.encode(entry).encode()


def entry_hash(
    seq: int,
    at: str,
    event: str,
    reference: str | None,
    actor: str,
    details: dict[str, Any],
    prev_hash: str,
) -> str:
    body = {
        "seq": seq,
        "at": at,
        "event": event,
        "reference": reference,
        "actor": actor,
        "details": details,
        "prev_hash": prev_hash,
    }
    return hashlib.sha256(canonical(body)).hexdigest()


def entry_as_json(entry: AuditEntry) -> dict[str, Any]:
    return {
        "seq": entry.seq,
        "at": iso(entry.at),
        "event": entry.event,
        "reference": entry.reference,
        "actor": entry.actor,
        "details": entry.details,
        "prev_hash": entry.prev_hash,
        "hash": entry.hash,
    }


class AuditLog:
    """Appends entries to the chain and mirrors them to a JSON-lines file."""

    def __init__(self, mirror: Path | None) -> None:
        self.mirror = mirror
        self._lock = threading.Lock()
        self._mirror_ready = False

    def append(
        self,
        session: Session,
        event: str,
        *,
        at: datetime,
        actor: str = "system",
        reference: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> int:
        """Add an entry inside the caller's transaction; returns its sequence number.

        Plain INSERT/UPDATE statements rather than ORM objects: every write of
        the gateway appends here, and the unit of work's bookkeeping cost more
        than the hashing.
        """
        # The head is locked and read once per transaction and kept in Session.info as
        # a plain dict, which a savepoint that is undone puts back as it was.
        head: dict[str, Any] | None = session.info.get(_HEAD)
        if head is None:
            row = session.execute(
                select(AuditHead.seq, AuditHead.hash).where(AuditHead.id == 1).with_for_update()
            ).first()
            if row is None:
                session.execute(insert(AuditHead).values(id=1, seq=0, hash=GENESIS_HASH))
                head = {"seq": 0, "hash": GENESIS_HASH}
            else:
                head = {"seq": row.seq, "hash": row.hash}
            session.info[_HEAD] = head
        clean = _redact(details or {})
        at_text = iso(at)
        seq: int = head["seq"] + 1
        prev_hash = head["hash"]
        digest = entry_hash(seq, at_text, event, reference, actor, clean, prev_hash)
        # Prebuilt statements on the session's connection: the cheapest path through
        # SQLAlchemy, and still inside the caller's transaction.
        connection = session.connection()
        connection.execute(
            _INSERT_ENTRY,
            {
                "seq": seq,
                "at": at,
                "event": event,
                "reference": reference,
                "actor": actor,
                "details": clean,
                "prev_hash": prev_hash,
                "hash": digest,
            },
        )
        connection.execute(_MOVE_HEAD, {"new_seq": seq, "new_hash": digest})
        head["seq"], head["hash"] = seq, digest
        pending: list[dict[str, Any]] = session.info.setdefault("hfa_audit_pending", [])
        if not session.info.get(_HOOKED):
            # Once per session, and not "once=True": a savepoint's release also fires
            # after_commit, and the hook must still be there for the real commit.
            session.info[_HOOKED] = True
            sa_event.listen(session, "after_commit", self._write_pending)
            sa_event.listen(session, "after_rollback", self._drop_pending)
        pending.append(
            {
                "seq": seq,
                "at": at_text,
                "event": event,
                "reference": reference,
                "actor": actor,
                "details": clean,
                "prev_hash": prev_hash,
                "hash": digest,
            }
        )
        return seq

    def _write_pending(self, session: Session) -> None:
        if session.in_nested_transaction():
            # Only a savepoint was released: nothing is committed yet.
            return
        pending = session.info.pop("hfa_audit_pending", [])
        for p in pending:
            # One log line per event, after commit, so a log never shows what was rolled back.
            log.info(
                "%s %s by %s",
                p["event"],
                p["reference"] or "-",
                p["actor"],
                extra={"fields": {k: p[k] for k in ("seq", "event", "reference", "actor")}},
            )
        if not pending or self.mirror is None:
            return
        lines = "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pending)
        with self._lock:
            if not self._mirror_ready:
                self.mirror.parent.mkdir(parents=True, exist_ok=True)
                self._mirror_ready = True
            with self.mirror.open("a", encoding="utf-8") as fh:
                fh.write(lines)
                fh.flush()

    def _drop_pending(self, session: Session) -> None:
        if session.in_nested_transaction():
            # A savepoint was undone: whoever opened it cuts its own entries back.
            return
        session.info.pop("hfa_audit_pending", None)


# Reading the log: tail, anchor, verify.


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
        at_text = _sqlite_iso(at) if raw_at else iso(at)
        if seq != expected:
            problem = Problem("database", expected, "removed", f"the next entry is {seq}")
        elif entry_hash(seq, at_text, event, reference, actor, details, prev_hash) != digest:
            problem = Problem("database", seq, "altered", "its content does not match its hash")
        elif prev_hash != prev:
            problem = Problem(
                "database",
                seq,
                "inserted",
                f"its prev_hash does not match entry {seq - 1} "
                "(an entry was inserted, removed or reordered here)",
            )
        elif anchor is not None and seq == anchor[0] and digest != anchor[1]:
            problem = Problem("database", seq, "rewritten", "its hash differs from the anchor")
        if problem is not None:
            break
        if cursor is not None:
            cursor.feed(
                {
                    "seq": seq,
                    "at": at_text,
                    "event": event,
                    "reference": reference,
                    "actor": actor,
                    "details": details,
                    "prev_hash": prev_hash,
                    "hash": digest,
                }
            )
        prev, expected = digest, seq + 1
        verdict.entries += 1
    rows.close()
    scanned_all = problem is None
    last = expected - 1
    verdict.head_seq, verdict.head_hash = head(session)
    if problem is None:
        if verdict.head_seq > last:
            problem = Problem(
                "database", last + 1, "removed", f"the head names entry {verdict.head_seq}"
            )
        elif verdict.head_seq < last:
            problem = Problem("database", verdict.head_seq + 1, "inserted", "is after the head")
        elif verdict.head_hash != prev:
            problem = Problem("database", last, "altered", "the head's hash differs")
        elif anchor is not None and anchor[0] > last:
            problem = Problem(
                "database", anchor[0], "removed", f"the anchor is past the last entry {last}"
            )
    verdict.problems = [problem] if problem is not None else []
    if cursor is not None:
        # After a fault in the database the scan stopped; the mirror is judged up to there.
        cursor.finish(complete=scanned_all)
        verdict.mirror_lines = cursor.line_no
        if cursor.problem is not None:
            verdict.problems.append(cursor.problem)
    return verdict


def generate(
    session: Session, count: int, *, start: datetime, mirror: Path | None = None
) -> tuple[int, str]:
    """Append ``count`` synthetic entries in bulk (benchmarks and tests); returns the head.

    Builds the same chain ``append`` would, with one multi-row INSERT per batch.
    """
    seq, prev = head(session)
    fh = mirror.open("a", encoding="utf-8") if mirror is not None else None
    try:
        for batch_start in range(0, count, VERIFY_BATCH):
            rows: list[dict[str, Any]] = []
            for _ in range(min(VERIFY_BATCH, count - batch_start)):
                seq += 1
                at = start + timedelta(milliseconds=seq)
                details = {"outbox_id": seq, "purpose": "request", "to": "lawyer@example.com"}
                reference = f"HFA-{seq // 3 + 1:05d}"
                digest = entry_hash(seq, iso(at), "email.sent", reference, "system", details, prev)
                rows.append(
                    {
                        "seq": seq,
                        "at": at,
                        "event": "email.sent",
                        "reference": reference,
                        "actor": "system",
                        "details": details,
                        "prev_hash": prev,
                        "hash": digest,
                    }
                )
                prev = digest
            session.execute(insert(AuditEntry), rows)
            if fh is not None:
                fh.write(
                    "".join(
                        json.dumps({**r, "at": iso(r["at"])}, ensure_ascii=False) + "\n"
                        for r in rows
                    )
                )
    finally:
        if fh is not None:
            fh.close()
    row = session.get(AuditHead, 1)
    if row is None:
        session.add(AuditHead(id=1, seq=seq, hash=prev))
    else:
        row.seq, row.hash = seq, prev
    return seq, prev
