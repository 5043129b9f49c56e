"""A 50-turn thread's bundle costs as many queries as a 2-turn one's, and little CPU.

Timings are in bench/evidence.py; here, the work: statements sent to the
database (constant, whatever the thread's length) and the CPU time of export
and verify together.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from sqlalchemy import event

from gateway.evidence import verifier
from tests import auditkit
from tests.budget import cpu_budget
from tests.conftest import Running
from tests.evidence.kit import all_sent, answered, export_of, long_thread

# What one export may ask the database: the settle check, the thread, its emails, its
# entries, the checkpoint and the leaf hashes (one pass), whatever the thread holds.
STATEMENTS = 16


def statements_of_export(running: Running, reference: str, out: Path) -> list[str]:
    """The statements this export sent (this thread's only: the gateway runs beside it)."""
    me = threading.get_ident()
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if threading.get_ident() == me:
            seen.append(statement)

    engine = running.services.db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        export_of(running, reference, out)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    return seen


async def test_a_50_turn_thread_exports_and_verifies_within_its_budget(
    running: Running, tmp_path: Path
) -> None:
    short = await answered(running, "May we sign?", "Approved.\n\nDana")
    await all_sent(running)
    long = await long_thread(running, 50)
    assert len((await running.status(long))["turns"]) >= 50

    # Each export first waits for the sequencer; counted once nothing is waiting, so that
    # the count is the export's own work.
    await asyncio.to_thread(auditkit.settle, running.services)
    few = await asyncio.to_thread(
        statements_of_export, running, short["reference"], tmp_path / "s.zip"
    )
    await asyncio.to_thread(auditkit.settle, running.services)
    many = await asyncio.to_thread(
        statements_of_export, running, long["reference"], tmp_path / "l.zip"
    )
    assert len(many) == len(few) <= STATEMENTS, many

    # Run here, in the event loop's thread: the gateway's sequencer waits meanwhile, so
    # the entry the last export wrote is integrated first.
    await asyncio.to_thread(auditkit.settle, running.services)
    with cpu_budget(1.0):
        done = export_of(running, long["reference"], tmp_path / "again.zip")
        verdict = verifier.verify_zip(str(done.path))
    assert verdict.ok, verdict.problems
    assert done.emails > 50 and done.entries > 100
