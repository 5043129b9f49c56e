"""The audit log, write side: each transaction appends its own entries, sharing no row.

``AuditLog.append`` inserts one row in the caller's transaction and nothing
else: no head row, no counter, no lock, so writers on any number of processes
and hosts run side by side. The database numbers the row (``seq``); the
sequencer (``gateway.store.sequencer``) later gives each committed entry its
place in the Merkle tree and signs a checkpoint. An entry's leaf is its
canonical JSON (``leaf_data``): the fields written here, plus the old chain
hashes for entries of an earlier release.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import bindparam, insert
from sqlalchemy import event as sa_event
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import TableClause

from gateway.contract import iso
from gateway.store.audit_mac import EntryMacs, stored_form
from gateway.store.models import AuditEntry
from gateway.store.prepared import Prepared, connection_of

_PENDING = "hfa_audit_pending"
_ENTRIES = cast(TableClause, AuditEntry.__table__)
# RETURNING seq: the entry's number, in the same round trip as the insert.
_INSERT_ENTRY = Prepared(
    insert(_ENTRIES)
    .values(
        {name: bindparam(name) for name in ("at", "event", "reference", "actor", "details", "mac")}
    )
    .returning(_ENTRIES.c.seq),
    results=(_ENTRIES.c.seq.type,),
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


def entry_fields(
    seq: int,
    at: str,
    event: str,
    reference: str | None,
    actor: str,
    details: Any,
    prev_hash: str | None = None,
    digest: str | None = None,
) -> dict[str, Any]:
    """An entry as its leaf covers it; chain hashes only for entries of the old chain."""
    fields: dict[str, Any] = {
        "seq": seq,
        "at": at,
        "event": event,
        "reference": reference,
        "actor": actor,
        "details": details,
    }
    if prev_hash is not None:
        fields["prev_hash"] = prev_hash
        fields["hash"] = digest
    return fields


# An entry whose content was erased (``store.erasure``): its details are only their hash,
# its leaf hash is the one stored when it was integrated, and an ``ERASURE_EVENT`` entry
# names it.
ERASED_KEY = "erased_sha256"
ERASURE_EVENT = "request.erased"


def is_erased_entry(details: Any) -> bool:
    return isinstance(details, dict) and set(details) == {ERASED_KEY}


def leaf_data(fields: dict[str, Any]) -> bytes:
    """The bytes the tree hashes for an entry: its canonical JSON (without its leaf index)."""
    return canonical({k: v for k, v in fields.items() if k not in ("leaf_index", "leaf_hash")})


def leaf_hash_hex(fields: dict[str, Any]) -> str:
    return hashlib.sha256(b"\x00" + leaf_data(fields)).hexdigest()


def fields_of(entry: AuditEntry) -> dict[str, Any]:
    """The fields of a stored entry that its leaf hash covers."""
    return entry_fields(
        entry.seq,
        iso(entry.at),
        entry.event,
        entry.reference,
        entry.actor,
        entry.details,
        entry.prev_hash,
        entry.hash,
    )


def entry_as_json(entry: AuditEntry) -> dict[str, Any]:
    """An entry as audit.jsonl and ``hfa audit tail --json`` print it."""
    return {"leaf_index": entry.leaf_index, **fields_of(entry)}


class AuditLog:
    """Appends entries in the caller's transaction; ``mirror`` is this host's audit.jsonl,
    ``macs`` signs each entry as the gateway's (``audit_mac``)."""

    def __init__(self, mirror: Path | None, macs: EntryMacs) -> None:
        self.mirror = mirror
        self.macs = macs

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
        """Add an entry inside the caller's transaction: one INSERT, touching no shared row.

        Returns the entry's number (``seq``), by which ``hfa audit proof`` finds it.

        A prepared statement on the session's connection, not an ORM object: every
        write of the gateway appends here, and the unit of work's bookkeeping cost
        more than the insert.
        """
        clean = stored_form(_redact(details or {}))
        mac = self.macs.sign(at, event, reference, actor, clean)
        seq = _INSERT_ENTRY.insert_id(
            connection_of(session),
            {
                "at": at,
                "event": event,
                "reference": reference,
                "actor": actor,
                "details": clean,
                "mac": mac,
            },
        )
        pending: list[tuple[int, str, str | None, str]] = session.info.setdefault(_PENDING, [])
        pending.append((seq, event, reference, actor))
        return seq


# Listened for on every session, once: listening on each session that appends cost a
# filing batch more than its audit entries (SQLAlchemy builds the instance's own
# dispatch for it). A session with nothing pending is passed over at once.
@sa_event.listens_for(Session, "after_commit")
def _log_pending(session: Session) -> None:
    if _PENDING not in session.info or session.in_nested_transaction():
        # Nothing appended, or only a savepoint was released: nothing is committed yet.
        return
    for seq, event, reference, actor in session.info.pop(_PENDING, []):
        # One log line per event, after commit, so a log never shows what was rolled back.
        log.info(
            "%s %s by %s",
            event,
            reference or "-",
            actor,
            extra={"fields": {"seq": seq, "event": event, "reference": reference, "actor": actor}},
        )


@sa_event.listens_for(Session, "after_rollback")
def _drop_pending(session: Session) -> None:
    if _PENDING not in session.info or session.in_nested_transaction():
        # A savepoint was undone: whoever opened it cuts its own entries back.
        return
    session.info.pop(_PENDING, None)
