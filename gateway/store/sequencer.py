"""The sequencer: integrates committed entries into the Merkle tree, one signed batch at a time.

One transaction per batch: read the newest checkpoint (its size and the tree's
right edge), take the committed entries not yet in the tree, give each the next
leaf index and its leaf hash, and insert the checkpoint of the new size, signed.
Nothing else is locked: writers keep inserting entries meanwhile.

Exactly once, even with two sequencers by mistake: ``leaf_index`` is unique and a
checkpoint's size is its primary key, so of two batches that raced, one fails
and is rolled back; a batch is all or nothing, so a crash leaves no half batch.
Which entries are committed: those the batch's statement sees. Each statement
sees exactly the rows of transactions that committed before it began (READ
COMMITTED on PostgreSQL; on SQLite the batch is the only writer, ``BEGIN
IMMEDIATE``), so a row it sees is committed and stays, and a row of an open
transaction is not seen: it is integrated by a later batch once it commits, and
never if it rolls back. Entries are found through the partial index of rows with
no leaf yet, never through a high-water mark, so an entry that commits late (a
long transaction that took a small ``seq``) is integrated when it commits, not
skipped; and no batch waits for other transactions to end, so a long one holds
back only its own entries. (The WAL orders commits: a batch's commit comes after
the commits of the entries it saw, so no crash or failover keeps the leaf and
loses its entry.)

Leadership: one sequencer per cluster is active. On PostgreSQL it holds a
session advisory lock on a connection of its own (the server drops it the
moment that connection dies, so another process takes over at its next try,
within ``TAKEOVER_SECONDS``); on SQLite, an ``flock`` beside the database, which
the kernel releases with the process. After each batch, the leader appends the
new leaves to this host's audit.jsonl (``gateway.store.mirror``).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, func, select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from gateway.runner import ThreadRunner
from gateway.store import audit_origin, merkle, mirror
from gateway.store import checkpoint as notes
from gateway.store.audit import AuditLog, fields_of, leaf_hash_hex
from gateway.store.audit_mac import EntryMacs
from gateway.store.audit_refusal import refuse, written_by_the_gateway
from gateway.store.db import Database
from gateway.store.models import AuditCheckpoint, AuditEntry
from gateway.store.signing import LogKeys

log = logging.getLogger(__name__)

# pg_try_advisory_lock key of the active sequencer ("hfa", then 3).
LEADER_KEY = 0x686661_03
TAKEOVER_SECONDS = 1.0
BATCH_LIMIT = 2000

_TAKE_LEAF = (
    update(AuditEntry)
    .where(AuditEntry.seq == bindparam("s"), AuditEntry.leaf_index.is_(None))
    .values(leaf_index=bindparam("i"), leaf_hash=bindparam("h"))
)


# PostgreSQL: every leaf of the batch in one statement and one round trip. As many
# statements, pipelined, cost the sequencer's thread a wait for the interpreter at each
# row's reply while the worker's loop is busy: seconds for a batch of hundreds.
_TAKE_LEAVES = text(
    "UPDATE audit SET leaf_index = u.i, leaf_hash = u.h "
    "FROM unnest(CAST(:s AS bigint[]), CAST(:i AS bigint[]), CAST(:h AS text[])) AS u(s, i, h) "
    "WHERE audit.seq = u.s AND audit.leaf_index IS NULL"
)


def _take_leaves(conn: Connection, changes: list[dict[str, Any]]) -> int:
    """Give each entry its leaf; how many took one."""
    if conn.dialect.name != "postgresql":
        return int(conn.execute(_TAKE_LEAF, changes).rowcount)
    columns = {key: [change[key] for change in changes] for key in ("s", "i", "h")}
    return int(conn.execute(_TAKE_LEAVES, columns).rowcount)


@dataclass(frozen=True)
class Batch:
    """What one integration added: leaves [start, size) and the checkpoint of ``size``."""

    start: int
    size: int
    root: bytes
    note: str
    lines: list[dict[str, Any]]
    # The tree's right edge at ``size``: where the next batch continues.
    edge: merkle.CompactRange


def latest_checkpoint(session: Session) -> AuditCheckpoint | None:
    return session.scalars(
        select(AuditCheckpoint).order_by(AuditCheckpoint.tree_size.desc()).limit(1)
    ).first()


def _edge(session: Session) -> tuple[merkle.CompactRange, list[AuditEntry]]:
    """The tree's edge at its newest checkpoint, plus leaves integrated after it.

    Leaves past the newest checkpoint exist only after an upgrade (the old chain's
    entries, given their leaves by the migration): they are folded in and covered
    by this batch's checkpoint.
    """
    newest = latest_checkpoint(session)
    if newest is None:
        edge = merkle.CompactRange()
    else:
        edge = merkle.CompactRange(newest.tree_size, [bytes.fromhex(h) for h in newest.edge])
    after = list(
        session.scalars(
            select(AuditEntry)
            .where(AuditEntry.leaf_index >= edge.size)
            .order_by(AuditEntry.leaf_index)
        )
    )
    for entry in after:
        if entry.leaf_index != edge.size or entry.leaf_hash is None:
            raise RuntimeError(f"audit leaf {edge.size} is missing: run 'hfa audit verify'")
        edge.append(bytes.fromhex(entry.leaf_hash))
    return edge, after


def add_checkpoint(
    session: Session, edge: merkle.CompactRange, keys: LogKeys, at: datetime
) -> tuple[bytes, str]:
    """The signed checkpoint of the tree as ``edge`` ends it, with the edge kept beside it so
    the next batch continues the tree without reading every leaf: its root and signed note."""
    root = edge.root()
    note = notes.sign(notes.Checkpoint(keys.origin, edge.size, root), keys.origin, keys.signer)
    session.add(
        AuditCheckpoint(
            tree_size=edge.size,
            root_hash=root.hex(),
            at=at,
            note=note,
            edge=[h.hex() for h in edge.hashes],
        )
    )
    return root, note


def integrate(
    session: Session,
    keys: LogKeys,
    now: datetime,
    limit: int = BATCH_LIMIT,
    edge: merkle.CompactRange | None = None,
    *,
    macs: EntryMacs,
) -> Batch | None:
    """One batch in the caller's transaction; None when nothing committed is waiting.

    ``edge`` is the tree's edge as this process's previous batch left it: given, the
    batch reads it back only when the newest checkpoint's size, fetched with the
    pending entries, says the tree moved meanwhile (another leader by mistake, a
    restore). Four round trips in all on PostgreSQL: the pending entries, their leaves,
    the checkpoint and the commit; under load each one waits its turn for a busy
    server, and that is most of the time an entry waits for its proof.
    """
    carried: list[AuditEntry] = []
    if edge is None:
        edge, carried = _edge(session)
    newest_size = select(func.max(AuditCheckpoint.tree_size)).scalar_subquery()
    rows = session.execute(
        select(AuditEntry, newest_size)
        .where(AuditEntry.leaf_index.is_(None), AuditEntry.refused.is_(None))
        .order_by(AuditEntry.seq)
        .limit(limit)
    ).all()
    # Only what the gateway's own transactions wrote is signed into the log.
    entries = [entry for entry, _size in rows if written_by_the_gateway(macs, entry)]
    if len(entries) < len(rows):
        refuse(session, macs, [e for e, _s in rows if e not in entries], now)
    if rows and not carried and (rows[0][1] or 0) != edge.size:
        edge, carried = _edge(session)
    if not entries and not carried:
        return None
    start = edge.size - len(carried)
    lines = [{"leaf_index": e.leaf_index, **fields_of(e)} for e in carried]
    changes = []
    for entry in entries:
        fields = fields_of(entry)
        digest = leaf_hash_hex(fields)
        changes.append({"s": entry.seq, "i": edge.size, "h": digest})
        lines.append({"leaf_index": edge.size, **fields})
        edge.append(bytes.fromhex(digest))
    if changes:
        taken = _take_leaves(session.connection(), changes)
        # Each entry must have taken its leaf here, and each leaf index must be free
        # (it is unique): of two leaders by mistake, or a leader whose remembered edge
        # is stale, this batch fails and rolls back whole.
        if taken != len(changes):
            raise RuntimeError("another sequencer integrated some of these entries")
    root, note = add_checkpoint(session, edge, keys, now)
    session.flush()
    return Batch(start, edge.size, root, note, lines, edge)


class Sequencer:
    """Leadership plus the batch loop's steps, for one process."""

    def __init__(
        self, db: Database, keys: LogKeys, mirror_path: Path | None, *, macs: EntryMacs
    ) -> None:
        self.db = db
        self.keys = keys
        self.mirror_path = mirror_path
        # What proves an entry was written by the gateway (``audit_mac``).
        self.macs = macs
        self._conn: Connection | None = None
        self._fd: int | None = None
        # The tree's edge after this leader's last batch; forgotten when it lets go.
        self._edge: merkle.CompactRange | None = None
        # Set when this process takes the lead: its first step brings the mirror up to
        # the tree, as a leader killed between its commit and its mirror lines left it.
        self._fresh = False

    @classmethod
    def for_log(cls, db: Database, keys: LogKeys, audit: AuditLog) -> Sequencer:
        """The sequencer of ``audit``'s log: its mirror, and the MACs its entries carry."""
        return cls(db, keys, audit.mirror, macs=audit.macs)

    @property
    def leading(self) -> bool:
        return self._conn is not None or self._fd is not None

    def lead(self) -> bool:
        """Become the cluster's sequencer if no live process is; True while this one is."""
        if self.leading:
            return True
        if self.db.is_sqlite:
            return self._lead_sqlite()
        conn = self.db.engine.connect()
        try:
            taken = bool(conn.scalar(text("SELECT pg_try_advisory_lock(:k)"), {"k": LEADER_KEY}))
            conn.commit()
        except Exception:
            conn.invalidate()
            conn.close()
            raise
        if not taken:
            conn.close()
            return False
        self._conn = conn
        self._fresh = True
        self._name_as_the_log()
        log.info("this process is the audit log's sequencer")
        return True

    def _name_as_the_log(self) -> None:
        """Sign under the log's own name: another leader may have renamed it (its
        HFA_AUDIT_LOG_ORIGIN) since this process started."""
        with self.db.read_only() as session:
            self.keys = audit_origin.resolve(self.keys, audit_origin.newest_note(session))

    def _lead_sqlite(self) -> bool:
        database = Path(self.db.url.removeprefix("sqlite:///"))
        fd = os.open(
            database.with_name(database.name + "-sequencer.lock"), os.O_RDWR | os.O_CREAT, 0o600
        )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        self._fresh = True
        self._name_as_the_log()
        return True

    def let_go(self) -> None:
        self._edge = None
        if self._conn is not None:
            # Closed for good, not handed back to the pool: the lock belongs to the
            # server session, which must end for another process to take over.
            with contextlib.suppress(Exception):
                self._conn.invalidate()
                self._conn.close()
            self._conn = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def step(self, now: datetime) -> int:
        """Integrate one batch (as leader); how many entries it added."""
        edge, self._edge = self._edge, None
        fresh, self._fresh = self._fresh, False
        if fresh:
            with self.db.transaction() as session:
                audit_origin.publish(session, self.keys, now)
        if self._conn is not None:
            with Session(bind=self._conn) as session, session.begin():
                batch = integrate(session, self.keys, now, edge=edge, macs=self.macs)
        else:
            with self.db.transaction() as session:
                batch = integrate(session, self.keys, now, edge=edge, macs=self.macs)
        if batch is None:
            self._edge = edge
            if fresh:
                # Nothing new to integrate, but the last leader may have died after its
                # commit and before its mirror lines: without this the mirror would lag
                # until the next entry arrives.
                self._write_mirror(None)
            return 0
        self._edge = batch.edge
        self._write_mirror(batch)
        return batch.size - batch.start

    def _write_mirror(self, batch: Batch | None) -> None:
        if self.mirror_path is None:
            return
        try:
            if batch is None:
                mirror.complete(self.mirror_path, self.db.engine)
            else:
                mirror.append_batch(self.mirror_path, self.db.engine, batch.start, batch.lines)
        except Exception:
            # Committed is committed: the next batch, or 'hfa audit mirror', fills the gap.
            log.exception("could not write the audit mirror %s", self.mirror_path)


async def run_sequencer(
    sequencer: Sequencer,
    now: Any,
    stop: asyncio.Event,
    poll_seconds: float,
) -> None:
    """Until ``stop``: lead when no other process does, and integrate while leading.

    The whole loop runs in a thread of its own (on PostgreSQL it waits on the network,
    on SQLite on the write lock, and neither may stall the worker's event loop). Not
    only each step: between steps the loop used to come back to the event loop, which
    a busy worker (a burst of emails being rendered) answered late, and every entry
    waited for its leaf that much longer.
    """
    await _Integrating(sequencer, now, poll_seconds).run_in_thread(stop)


class _Integrating(ThreadRunner):
    """The sequencer's loop: a batch as leader, or an attempt to become one, each time."""

    thread_name = "hfa-sequencer"

    def __init__(self, sequencer: Sequencer, now: Any, poll_seconds: float) -> None:
        failure = "audit sequencer step failed; trying again"
        super().__init__(failure, poll_seconds, failure_pause=TAKEOVER_SECONDS, logger=log)
        self.sequencer, self.now = sequencer, now
        self.wait = poll_seconds

    def _one_iteration(self) -> int:
        began = time.monotonic()
        if not self.sequencer.lead():
            self.wait = TAKEOVER_SECONDS
            return 0
        if self.sequencer.step(self.now()) >= BATCH_LIMIT:
            # A full batch: more are waiting. Otherwise batches are gathered for a poll
            # interval, which bounds how many checkpoints are made.
            return 1
        # Batches start every poll interval, however long the last one took (on a busy
        # server, most of it): an entry waits one interval plus one batch, not one
        # interval plus two.
        self.wait = max(0.0, self.poll_seconds - (time.monotonic() - began))
        return 0

    def _snooze(self, halt: threading.Event) -> None:
        halt.wait(self.wait)

    def _pause(self, halt: threading.Event) -> None:
        # The failure may have been the leader's connection: another process takes over.
        self.sequencer.let_go()
        super()._pause(halt)

    def _finish(self) -> None:
        self.sequencer.let_go()
