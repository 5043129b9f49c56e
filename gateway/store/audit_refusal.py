"""Refusing audit rows the gateway did not write: the sequencer's check before it integrates.

An entry is integrated only with a valid MAC of the gateway's (``audit_mac``).
Any other row is marked ``refused`` (never given a leaf), logged as an error,
and reported in the log itself by an ``audit.entry_refused`` entry the
gateway signs, which the next batch integrates.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.store.audit import AuditLog, fields_of, leaf_hash_hex
from gateway.store.audit_mac import EntryMacs
from gateway.store.models import AuditEntry

log = logging.getLogger("gateway.store.sequencer")


def refuse(session: Session, macs: EntryMacs, entries: list[AuditEntry], now: datetime) -> None:
    """Mark the entries the gateway did not write, and report each, signed, in the log."""
    for entry in entries:
        why = "no valid MAC: not written by the gateway's own transactions"
        session.execute(
            update(AuditEntry)
            .where(AuditEntry.seq == entry.seq, AuditEntry.leaf_index.is_(None))
            .values(refused=why)
        )
        log.error("audit entry %s (%s by %s) refused: %s", entry.seq, entry.event, entry.actor, why)
        AuditLog(None, macs).append(
            session,
            "audit.entry_refused",
            at=now,
            actor="sequencer",
            details={
                "seq": entry.seq,
                "event": entry.event[:64],
                "actor": entry.actor[:320],
                "reference": entry.reference,
                "at": iso(entry.at),
                "content_sha256": leaf_hash_hex(fields_of(entry)),
                "why": why,
            },
        )


def written_by_the_gateway(macs: EntryMacs, entry: AuditEntry) -> bool:
    return macs.verify(
        entry.mac, entry.at, entry.event, entry.reference, entry.actor, entry.details
    )
