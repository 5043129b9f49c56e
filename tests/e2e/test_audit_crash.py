"""Crash test: four processes write the audit log, each standing by as its sequencer, and
are killed with SIGKILL at random, 20 times, during the load.

Afterwards every committed entry has exactly one leaf, no entry of a rolled-back
transaction is anywhere (database or audit.jsonl), the mirror holds each leaf once
in order, and ``hfa audit verify`` passes. On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from gateway.cli import main
from gateway.services import Services
from gateway.store.models import AuditEntry
from tests import auditkit

ROOT = Path(__file__).resolve().parents[2]
PROCESSES = 4
KILLS = 20

# Writes entries (one in five in a transaction that then fails), and leads the
# integration whenever no other live process does, as every worker does.
WRITER = """
import random, sys, threading, time
from gateway.settings.config import load_config
from gateway.services import build_services
from gateway.store import signing
from gateway.store.sequencer import Sequencer

c = load_config()
s = build_services(c, migrate=False)
q = Sequencer(s.db, signing.load_keys(c.raw, c.data_dir), s.audit.mirror, macs=s.audit.macs)

def sequence():
    while True:
        try:
            if q.lead():
                q.step(s.clock.now())
        except Exception:
            q.let_go()
        time.sleep(0.1)

threading.Thread(target=sequence, daemon=True).start()
n = 0
while True:
    n += 1
    undo = random.random() < 0.2
    try:
        with s.db.transaction() as session:
            s.audit.append(session, "test.crash", at=s.clock.now(),
                           details={"w": sys.argv[1], "n": n, "undone": undo})
            if undo:
                raise RuntimeError("rolled back")
    except Exception:
        time.sleep(0.01)
"""


def _start(services: Services, name: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update({f"HFA_{k.upper()}": v for k, v in services.config.raw.items()})
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, name],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


@pytest.mark.slow
def test_processes_killed_at_random_lose_no_entry_and_integrate_none_twice(
    services: Services, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(21)
    procs = {f"p{n}": _start(services, f"p{n}") for n in range(PROCESSES)}
    try:
        time.sleep(2.0)  # all four up and writing
        for _ in range(KILLS):
            time.sleep(rng.uniform(0.2, 0.8))
            name = rng.choice(sorted(procs))
            os.kill(procs[name].pid, signal.SIGKILL)
            procs[name].wait(10)
            procs[name] = _start(services, name)
        time.sleep(1.0)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(10)
    auditkit.settle(services)
    with services.db.read_only() as session:
        entries = session.scalar(select(func.count()).select_from(AuditEntry)) or 0
        leaves = list(
            session.scalars(select(AuditEntry.leaf_index).order_by(AuditEntry.leaf_index))
        )
        undone = [d for d in session.scalars(select(AuditEntry.details)) if d.get("undone") is True]
    assert entries > 40, "the writers wrote too little to test anything"
    assert leaves == list(range(entries))  # every committed entry, each exactly once
    assert undone == []  # nothing of a rolled-back transaction
    lines = [json.loads(x) for x in auditkit.mirror_text(services).splitlines()]
    assert [x["leaf_index"] for x in lines] == list(range(entries))
    assert not any(x["details"].get("undone") for x in lines)
    for name, value in services.config.raw.items():
        monkeypatch.setenv(f"HFA_{name.upper()}", value)
    capsys.readouterr()
    assert main(["audit", "verify"]) == 0, capsys.readouterr().out
