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
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event as sa_event
from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.models import AuditEntry, AuditHead

GENESIS_HASH = "0" * 64

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


def canonical(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


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

    def append(
        self,
        session: Session,
        event: str,
        *,
        at: datetime,
        actor: str = "system",
        reference: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> AuditEntry:
        """Add an entry inside the caller's transaction."""
        head = session.scalars(select(AuditHead).where(AuditHead.id == 1).with_for_update()).first()
        if head is None:
            head = AuditHead(id=1, seq=0, hash=GENESIS_HASH)
            session.add(head)
        clean = _redact(details or {})
        at_text = iso(at)
        seq = head.seq + 1
        digest = entry_hash(seq, at_text, event, reference, actor, clean, head.hash)
        entry = AuditEntry(
            seq=seq,
            at=at,
            event=event,
            reference=reference,
            actor=actor,
            details=clean,
            prev_hash=head.hash,
            hash=digest,
        )
        session.add(entry)
        head.seq, head.hash = seq, digest
        session.flush()
        if self.mirror is not None:
            pending: list[dict[str, Any]] = session.info.setdefault("hfa_audit_pending", [])
            if not pending:
                sa_event.listen(session, "after_commit", self._write_pending, once=True)
                sa_event.listen(session, "after_rollback", self._drop_pending, once=True)
            pending.append(entry_as_json(entry))
        return entry

    def _write_pending(self, session: Session) -> None:
        pending = session.info.pop("hfa_audit_pending", [])
        if not pending or self.mirror is None:
            return
        lines = "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pending)
        with self._lock:
            self.mirror.parent.mkdir(parents=True, exist_ok=True)
            with self.mirror.open("a", encoding="utf-8") as fh:
                fh.write(lines)
                fh.flush()

    def _drop_pending(self, session: Session) -> None:
        session.info.pop("hfa_audit_pending", None)
