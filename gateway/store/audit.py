"""The audit log, write side: typed events appended to a hash chain, mirrored to audit.jsonl.

Each entry's hash is SHA-256 over a canonical JSON encoding of the entry and
the previous entry's hash, so altering, removing, inserting or reordering
any entry breaks every hash after it. Entries are appended in the same
transaction as the change they describe; the JSON-lines mirror is written
after that transaction commits, in seq order whichever process writes it
(see gateway.store.mirror).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, bindparam, insert, select, update
from sqlalchemy import event as sa_event
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.store import mirror
from gateway.store.models import AuditEntry, AuditHead
from gateway.store.prepared import Prepared, connection_of, prepared_insert

GENESIS_HASH = "0" * 64
# Where a transaction keeps the chain head it locked (in Session.info).
_HEAD = "hfa_audit_head"
_HOOKED = "hfa_audit_hooked"
_INSERT_ENTRY = prepared_insert(
    AuditEntry,
    ("seq", "at", "event", "reference", "actor", "details", "prev_hash", "hash"),
    returning_id=False,
)
_READ_HEAD = Prepared(
    select(AuditHead.seq, AuditHead.hash).where(AuditHead.id == 1).with_for_update(),
    results=(AuditHead.__table__.c.seq.type, AuditHead.__table__.c.hash.type),
)
_MOVE_HEAD = Prepared(
    update(AuditHead)
    .where(AuditHead.id == 1)
    .values(seq=bindparam("new_seq"), hash=bindparam("new_hash"))
)

log = logging.getLogger("gateway.audit")

# Keys whose values are never written, whatever code path hands them in.
_SECRET_KEYS = re.compile("token|secret|password|api_key|authorization", re.IGNORECASE)


def _redact(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: ("[redacted]" if _SECRET_KEYS.search(str(k)) else _redact(v))
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


def _move_head(session: Session) -> None:
    """Write the chain's head once, as the transaction that appended entries commits."""
    if session.in_nested_transaction():
        # Only a savepoint is released: the head goes with the outer commit.
        return
    head: dict[str, Any] | None = session.info.get(_HEAD)
    if head is not None and head.get("moved") is False:
        _MOVE_HEAD.execute(
            connection_of(session), {"new_seq": head["seq"], "new_hash": head["hash"]}
        )
        head["moved"] = True


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
    ) -> int:
        """Add an entry inside the caller's transaction; returns its sequence number.

        Plain INSERT/UPDATE statements rather than ORM objects: every write of
        the gateway appends here, and the unit of work's bookkeeping cost more
        than the hashing.
        """
        # The head is locked and read once per transaction and kept in Session.info as
        # a plain dict, which a savepoint that is undone puts back as it was.
        head: dict[str, Any] | None = session.info.get(_HEAD)
        connection = connection_of(session)
        if head is None:
            row = _READ_HEAD.first(connection, {})
            if row is None:
                connection.execute(insert(AuditHead).values(id=1, seq=0, hash=GENESIS_HASH))
                head = {"seq": 0, "hash": GENESIS_HASH}
            else:
                head = {"seq": row[0], "hash": row[1]}
            session.info[_HEAD] = head
        clean = _redact(details or {})
        at_text = iso(at)
        seq: int = head["seq"] + 1
        prev_hash = head["hash"]
        digest = entry_hash(seq, at_text, event, reference, actor, clean, prev_hash)
        # A prepared statement on the session's connection: inside the caller's
        # transaction, without SQLAlchemy's per-call execution cost.
        _INSERT_ENTRY.execute(
            connection,
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
        # The head row is moved once, just before the transaction commits (_move_head),
        # not once per entry: a transaction that appends many entries (a batch of
        # filings, a reply and its receipt) writes it once. Until then it is locked.
        head["seq"], head["hash"], head["moved"] = seq, digest, False
        pending: list[dict[str, Any]] = session.info.setdefault("hfa_audit_pending", [])
        if not session.info.get(_HOOKED):
            # Once per session, and not "once=True": a savepoint's release also fires
            # after_commit, and the hook must still be there for the real commit.
            session.info[_HOOKED] = True
            sa_event.listen(session, "before_commit", _move_head)
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
        try:
            with self._lock:
                mirror.write(self.mirror, session.get_bind(), pending)
        except Exception:
            # Committed is committed: the next write (or 'hfa audit verify') fills the gap.
            log.exception("could not write the audit mirror %s", self.mirror)

    def sync_mirror(self, engine: Engine) -> int:
        """Write every committed entry the mirror lacks (at start, and before verify).

        Returns how many lines were copied from the database.
        """
        if self.mirror is None:
            return 0
        with self._lock:
            return mirror.sync(self.mirror, engine)

    def _drop_pending(self, session: Session) -> None:
        if session.in_nested_transaction():
            # A savepoint was undone: whoever opened it cuts its own entries back.
            return
        session.info.pop("hfa_audit_pending", None)
