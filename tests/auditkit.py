"""Test helpers for the audit log: integrate what is committed, then read or verify it.

Entries reach the tree (and audit.jsonl) when the sequencer's next batch runs.
``settle`` makes that happen now: it runs a batch itself when no other process
leads, or waits for the leader (a running gateway's worker) to finish.
"""

from __future__ import annotations

import json
import time

from sqlalchemy import func, select

from gateway.services import Services
from gateway.store import audit_check, mirror, signing
from gateway.store.audit_check import Verdict
from gateway.store.models import AuditEntry
from gateway.store.sequencer import Sequencer

SETTLE_SECONDS = 20.0


def _pending(services: Services) -> int:
    with services.db.read_only() as session:
        count = session.scalar(
            select(func.count())
            .select_from(AuditEntry)
            # A refused row (not written by the gateway) is never integrated.
            .where(AuditEntry.leaf_index.is_(None), AuditEntry.refused.is_(None))
        )
    return int(count or 0)


def _mirror_behind(services: Services) -> bool:
    """True while audit.jsonl lacks a leaf the tree holds (its leader writes after commit)."""
    path = services.audit.mirror
    if path is None:
        return False
    with services.db.read_only() as session:
        last = session.scalar(select(func.max(AuditEntry.leaf_index)))
    if last is None:
        return False
    lines = path.read_bytes().splitlines() if path.exists() else []
    if not lines:
        return True
    try:
        written = mirror.leaf_index_of(json.loads(lines[-1]))
    except ValueError:
        return False  # a line edited by hand: the gateway writes nothing after it
    return written is not None and written < last


def settle(services: Services) -> None:
    """Integrate every committed entry (and write its mirror line) before returning."""
    keys = signing.load_keys(services.config.raw, services.config.data_dir)
    sequencer = Sequencer(services.db, keys, services.audit.mirror, macs=services.audit.macs)
    deadline = time.monotonic() + SETTLE_SECONDS
    try:
        while True:
            if sequencer.lead():
                # On PostgreSQL a batch waits for every older transaction of the cluster
                # to end (the horizon), so one step may find nothing yet.
                sequencer.step(services.clock.now())
            # Whoever leads (this helper, or a running gateway's worker) writes the mirror
            # lines after its commit: wait for both.
            if not _pending(services) and not _mirror_behind(services):
                return
            assert time.monotonic() < deadline, "the audit sequencer did not integrate in time"
            time.sleep(0.05)
    finally:
        sequencer.let_go()


def verify(services: Services, *, mirror: bool = True) -> Verdict:
    settle(services)
    keys = signing.load_keys(services.config.raw, services.config.data_dir)
    path = services.audit.mirror if mirror else None
    if path is not None and not path.exists():
        path = None
    with services.db.read_only() as session:
        return audit_check.verify(session, keys.publics(), mirror=path)


def mirror_text(services: Services) -> str:
    settle(services)
    path = services.audit.mirror
    assert path is not None
    return path.read_text(encoding="utf-8") if path.exists() else ""
