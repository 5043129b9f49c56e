"""The sequencer: committed entries integrated exactly once, rolled-back ones never, one leader."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, event, func, insert, select, update
from sqlalchemy.orm import Session

from gateway.services import Services
from gateway.store import signing
from gateway.store.models import AuditCheckpoint, AuditEntry
from gateway.store.sequencer import Sequencer, integrate, run_sequencer
from tests import auditkit

ROOT = Path(__file__).resolve().parents[2]


def append(services: Services, n: int) -> None:
    with services.db.transaction() as session:
        services.audit.append(session, "test.entry", at=services.clock.now(), details={"n": n})


def sequencer_of(services: Services) -> Sequencer:
    keys = signing.load_keys(services.config.raw, services.config.data_dir)
    return Sequencer(services.db, keys, services.audit.mirror, macs=services.audit.macs)


def leaves(services: Services) -> list[tuple[int, int | None]]:
    with services.db.read_only() as session:
        rows = session.execute(
            select(AuditEntry.seq, AuditEntry.leaf_index).order_by(AuditEntry.seq)
        )
        return [(seq, leaf) for seq, leaf in rows]


def test_a_rolled_back_transaction_is_never_integrated(services: Services) -> None:
    append(services, 1)
    with pytest.raises(RuntimeError), services.db.transaction() as session:
        services.audit.append(session, "test.undone", at=services.clock.now())
        raise RuntimeError("the business transaction fails after its entry")
    append(services, 2)
    verdict = auditkit.verify(services)
    assert verdict.problems == [] and verdict.leaves == 2
    assert "test.undone" not in auditkit.mirror_text(services)
    assert [leaf for _seq, leaf in leaves(services)] == [0, 1]


@pytest.mark.postgres
def test_on_postgres_a_long_transaction_holds_back_only_its_own_entries(
    services: Services,
) -> None:
    if services.db.is_sqlite:
        pytest.skip("SQLite has one writer at a time: no transaction stays open beside a batch")
    sequencer = sequencer_of(services)
    assert sequencer.lead()
    try:
        with services.db.engine.connect() as older:
            # An older transaction, still open, that has written an entry.
            older.execute(
                insert(AuditEntry).values(
                    at=services.clock.now(), event="test.older", actor="system", details={}
                )
            )
            append(services, 1)  # committed after it started
            # Integrated at once: no batch waits for other transactions to end.
            assert sequencer.step(services.clock.now()) == 1
            older.rollback()
        assert sequencer.step(services.clock.now()) == 0
    finally:
        sequencer.let_go()
    assert [event for event in _events_in_tree(services)] == ["test.entry"]
    assert auditkit.verify(services).problems == []


def test_a_batch_costs_three_statements_once_the_leader_knows_the_edge(
    services: Services,
) -> None:
    """Round trips are what an entry waits for on a busy server: a budget, not a clock."""
    sequencer = sequencer_of(services)
    statements: list[str] = []

    def count(
        _conn: Any, _cursor: Any, statement: str, _params: Any, _context: Any, many: bool
    ) -> None:
        # On PostgreSQL one statement is one round trip: none may run once per row.
        many = many and not services.db.is_sqlite
        statements.append(statement.split()[0].upper() + (" per row" if many else ""))

    assert sequencer.lead()
    try:
        append(services, 0)
        assert sequencer.step(services.clock.now()) == 1
        for n in range(1, 4):
            append(services, n)
        event.listen(services.db.engine, "before_cursor_execute", count)
        try:
            assert sequencer.step(services.clock.now()) == 3
        finally:
            event.remove(services.db.engine, "before_cursor_execute", count)
    finally:
        sequencer.let_go()
    # The pending entries, their leaves (one statement for the batch), the checkpoint.
    assert [s for s in statements if s != "BEGIN"] == ["SELECT", "UPDATE", "INSERT"]
    assert auditkit.verify(services).problems == []


def test_a_leader_whose_remembered_edge_is_stale_reads_the_tree_back(
    services: Services,
) -> None:
    """Two leaders by mistake, or the tree rebuilt: the edge in memory is not trusted."""
    sequencer = sequencer_of(services)
    keys = signing.load_keys(services.config.raw, services.config.data_dir)
    assert sequencer.lead()
    try:
        append(services, 0)
        assert sequencer.step(services.clock.now()) == 1
        append(services, 1)
        # Another process's batch, behind this leader's back.
        with services.db.transaction() as session:
            assert (
                integrate(session, keys, services.clock.now(), macs=services.audit.macs) is not None
            )
        append(services, 2)
        assert sequencer.step(services.clock.now()) == 1
        assert [leaf for _seq, leaf in leaves(services)] == [0, 1, 2]
        # The whole tree dropped (a restore of the entries alone): built again from leaf 0.
        with services.db.transaction() as session:
            session.execute(update(AuditEntry).values(leaf_index=None, leaf_hash=None))
            session.execute(delete(AuditCheckpoint))
        assert sequencer.step(services.clock.now()) == 3
    finally:
        sequencer.let_go()
    assert [leaf for _seq, leaf in leaves(services)] == [0, 1, 2]
    assert auditkit.verify(services).problems == []


def _steps_until_integrated(services: Services, sequencer: Sequencer) -> int:
    """Steps until one integrates something (the cluster's other transactions, in other
    databases too, can hold the horizon back for a moment); what it integrated."""
    for _ in range(100):
        done = sequencer.step(services.clock.now())
        if done:
            return done
        time.sleep(0.1)
    return 0


def _events_in_tree(services: Services) -> list[str]:
    with services.db.read_only() as session:
        return list(
            session.scalars(
                select(AuditEntry.event)
                .where(AuditEntry.leaf_index.is_not(None))
                .order_by(AuditEntry.leaf_index)
            )
        )


def test_a_late_commit_with_a_smaller_number_is_integrated_not_skipped(
    services: Services,
) -> None:
    if services.db.is_sqlite:
        pytest.skip("SQLite has one writer at a time: no commit overtakes another")
    sequencer = sequencer_of(services)
    assert sequencer.lead()
    try:
        with services.db.engine.connect() as slow:
            at = services.clock.now()
            # Written as the gateway writes it (with its MAC), by a transaction of its own.
            mac = services.audit.macs.sign(at, "test.slow", None, "system", {})
            slow.execute(
                insert(AuditEntry).values(
                    at=at, event="test.slow", actor="system", details={}, mac=mac
                )
            )
            append(services, 1)  # a larger seq, committed first
            sequencer.step(services.clock.now())
            slow.commit()
        for _ in range(50):
            if sequencer.step(services.clock.now()):
                break
            time.sleep(0.1)
    finally:
        sequencer.let_go()
    assert sorted(_events_in_tree(services)) == ["test.entry", "test.slow"]
    assert auditkit.verify(services).problems == []


def test_one_sequencer_leads_and_another_takes_over_when_it_lets_go(services: Services) -> None:
    first, second = sequencer_of(services), sequencer_of(services)
    try:
        assert first.lead()
        assert not second.lead()
        first.let_go()
        # The server drops the lock as the first one's session ends, a moment later.
        tries = 0
        while not second.lead():
            tries += 1
            assert tries < 20, "the second never took over"
            time.sleep(0.1)
    finally:
        first.let_go()
        second.let_go()


LEADER = """
import sys, time
from gateway.settings.config import load_config
from gateway.services import build_services
from gateway.store import signing
from gateway.store.sequencer import Sequencer
c = load_config()
s = build_services(c)
q = Sequencer(s.db, signing.load_keys(c.raw, c.data_dir), s.audit.mirror, macs=s.audit.macs)
assert q.lead()
print("leading", flush=True)
time.sleep(600)
"""


def test_a_sequencer_killed_is_replaced_at_the_next_try(services: Services) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update({f"HFA_{k.upper()}": v for k, v in services.config.raw.items()})
    env["PYTHONPATH"] = str(ROOT)
    leader = subprocess.Popen(
        [sys.executable, "-c", LEADER], env=env, stdout=subprocess.PIPE, text=True
    )
    standby = sequencer_of(services)
    try:
        assert leader.stdout is not None and leader.stdout.readline().strip() == "leading"
        assert not standby.lead()
        os.kill(leader.pid, signal.SIGKILL)
        leader.wait(10)
        # The lock dies with the process: the standby's next tries take over (each try is
        # what run_sequencer does every TAKEOVER_SECONDS).
        tries = 0
        while not standby.lead():
            tries += 1
            assert tries < 20, "the standby never took over"
            time.sleep(0.1)
        append(services, 1)
        assert _steps_until_integrated(services, standby) == 1
    finally:
        standby.let_go()
        if leader.poll() is None:
            leader.kill()
            leader.wait(10)


def test_a_new_leader_writes_the_mirror_lines_its_killed_predecessor_left_out(
    services: Services,
) -> None:
    for n in range(3):
        append(services, n)
    mirror_path = services.audit.mirror
    assert mirror_path is not None
    # The first leader commits its batch and is killed before its mirror lines: a
    # sequencer without a mirror path writes the same database and no line.
    keys = signing.load_keys(services.config.raw, services.config.data_dir)
    killed = Sequencer(services.db, keys, None, macs=services.audit.macs)
    assert killed.lead()
    try:
        assert _steps_until_integrated(services, killed) == 3
    finally:
        killed.let_go()
    assert not mirror_path.exists() or mirror_path.read_text() == ""
    # The next leader has nothing to integrate; its first step completes the mirror
    # at once rather than when the next entry arrives.
    successor = sequencer_of(services)
    assert successor.lead()
    try:
        assert successor.step(services.clock.now()) == 0
    finally:
        successor.let_go()
    lines = [json.loads(x) for x in mirror_path.read_text().splitlines()]
    assert [x["leaf_index"] for x in lines] == [0, 1, 2]


def test_two_batches_racing_integrate_each_entry_once(services: Services) -> None:
    """Leadership aside (two leaders by mistake), the constraints keep each entry once."""
    if services.db.is_sqlite:
        pytest.skip("SQLite runs one write transaction at a time")
    for n in range(5):
        append(services, n)
    keys = signing.load_keys(services.config.raw, services.config.data_dir)
    outcomes: list[str] = []
    integrated = threading.Event()

    def batch(hold: float) -> None:
        with Session(services.db.engine) as session:
            try:
                with session.begin():
                    integrate(session, keys, services.clock.now(), macs=services.audit.macs)
                    if hold:
                        integrated.set()
                    time.sleep(hold)
                outcomes.append("committed")
            except Exception as exc:
                outcomes.append(type(exc).__name__)

    # The first holds its batch open; the second reads the same entries meanwhile. It
    # starts once the first has integrated (a fixed pause let a busy machine start the
    # first too late, and both committed, one of them nothing).
    first = threading.Thread(target=batch, args=(3.0,))
    second = threading.Thread(target=batch, args=(0.0,))
    first.start()
    assert integrated.wait(60)
    second.start()
    for t in (first, second):
        t.join(60)
    assert outcomes.count("committed") == 1, outcomes
    with services.db.read_only() as session:
        assert session.scalar(select(func.count()).select_from(AuditCheckpoint)) == 1
    assert [leaf for _seq, leaf in leaves(services)] == [0, 1, 2, 3, 4]
    assert auditkit.verify(services).problems == []


async def test_entries_are_integrated_while_the_worker_loop_is_busy(services: Services) -> None:
    """The sequencer's loop does not come back to the worker's event loop between batches:
    an entry committed while that loop is busy (a burst of emails being rendered) gets
    its leaf all the same."""
    stop = asyncio.Event()
    sequencer = sequencer_of(services)
    task = asyncio.create_task(run_sequencer(sequencer, services.clock.now, stop, 0.05))
    try:
        append(services, 1)
        deadline = time.monotonic() + 10
        while leaves(services)[-1][1] is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert leaves(services)[-1][1] == 0, "the sequencer did not start"
        # From here the event loop is held by this test, as a busy worker holds it.
        append(services, 2)
        deadline = time.monotonic() + 10
        while leaves(services)[-1][1] is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [leaf for _seq, leaf in leaves(services)] == [0, 1]
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=10)
    assert not sequencer.leading
