"""Replies recorded many to a transaction: one commit for a batch, one crash undoes its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from gateway.inbound import worker
from gateway.inbound.claims import claim_pending, load_raw
from gateway.inbound.reading import parse_stored
from gateway.inbound.worker import WRITE_CHUNK, process_batch
from gateway.services import Services
from gateway.store.models import InboundMessage, Turn
from gateway.store.prepared import Prepared
from tests import auditkit
from tests.inbound.batchkit import reply_addresses, stored


def outcomes(services: Services) -> dict[int, tuple[str, str | None, int]]:
    with services.db.read_only() as session:
        rows = session.execute(
            select(InboundMessage.id, InboundMessage.state, InboundMessage.outcome)
        ).all()
        humans = session.scalar(select(func.count()).where(Turn.author == "human"))
    assert humans is not None
    return {i: (state, outcome, humans) for i, state, outcome in rows}


def test_a_batch_of_replies_is_recorded_in_one_commit_without_a_savepoint_each(
    services: Services,
) -> None:
    ids = stored(services, reply_addresses(services, WRITE_CHUNK))
    assert claim_pending(services) == ids
    # Read first, as the worker does, so that only the write transaction is counted.
    read = {i: parse_stored(raw) for i, raw in load_raw(services, ids).items()}
    statements: list[str] = []
    commits: list[int] = []

    def seen(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        statements.append(sql)

    def committed(conn: Any) -> None:
        # The rows read before the write transaction end in a commit of their own,
        # which writes nothing.
        if not conn.get_execution_options().get("hfa_read_only"):
            commits.append(1)

    engine = services.db.engine
    event.listen(engine, "before_cursor_execute", seen)
    event.listen(engine, "commit", committed)
    try:
        assert process_batch(services, ids, read) == ["recorded"] * WRITE_CHUNK
    finally:
        event.remove(engine, "before_cursor_execute", seen)
        event.remove(engine, "commit", committed)
    assert len(commits) == 1
    assert not [s for s in statements if s.lstrip().upper().startswith("SAVEPOINT")]
    assert auditkit.verify(services).problems == []


@pytest.mark.parametrize("broken_at", [0, 3, WRITE_CHUNK - 1])
def test_a_crash_undoes_only_its_own_message_and_the_rest_of_the_batch_is_recorded(
    services: Services, monkeypatch: pytest.MonkeyPatch, broken_at: int
) -> None:
    ids = stored(services, reply_addresses(services, WRITE_CHUNK + 2))
    assert claim_pending(services) == ids
    real = worker.process
    broken = ids[broken_at]

    def process(services: Services, session: Session, row: InboundMessage, *a: Any) -> Any:
        outcome = real(services, session, row, *a)
        if row.id == broken:
            # After the turn, status and receipt were written: all of it must go.
            raise RuntimeError("bug after recording")
        return outcome

    monkeypatch.setattr(worker, "process", process)
    got = process_batch(services, ids)
    assert got == ["retry" if i == broken else "recorded" for i in ids]
    after = outcomes(services)
    assert after[broken][:2] == ("pending", None)
    assert all(after[i][:2] == ("done", "recorded") for i in ids if i != broken)
    assert after[ids[0]][2] == len(ids) - 1  # human turns: none for the broken one
    with services.db.read_only() as session:
        row = session.get(InboundMessage, broken)
        assert row is not None and row.lease_until is None and row.attempts == 1
    # The log and its mirror file hold nothing of what was undone.
    assert auditkit.verify(services).problems == []
    # Its retry records it.
    monkeypatch.setattr(worker, "process", real)
    assert claim_pending(services) == [broken]
    assert process_batch(services, [broken]) == ["recorded"]


# What recording one approval under the write lock may cost: the duplicate check, its
# held readings, the turn (and its number), the vote (the policy row locked, the log,
# the vote, the policy row), the status (its audit entry and turn), the reply's audit
# entry, whether anyone else is on the thread, the receipt (its row and entry), the
# request's row, the message's outcome and its entry. The chunk adds its begin, its
# requests (read and locked) and its commit.
STATEMENTS_PER_REPLY = 17
# On PostgreSQL, where several workers may read one lawyer's replies out of the order they
# arrived, one more: whether a later answer of theirs is on the record already.
STATEMENTS_PER_REPLY_POSTGRES = STATEMENTS_PER_REPLY + 1
STATEMENTS_PER_CHUNK = 3


def test_recording_a_batch_flushes_nothing_and_keeps_to_a_statement_budget(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the write lock every statement is compiled once and run as it is needed:
    the unit of work, which flushed four times a reply, is left nothing to write."""
    ids = stored(services, reply_addresses(services, WRITE_CHUNK))
    assert claim_pending(services) == ids
    read = {i: parse_stored(raw) for i, raw in load_raw(services, ids).items()}
    statements: list[str] = []
    flushes: list[int] = []
    in_transaction = [False]
    real_run = Prepared._run

    def run(self: Prepared, conn: Any, params: Any) -> Any:
        if in_transaction[0]:
            statements.append(str(self.statement).split()[0])
        return real_run(self, conn, params)

    def seen(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        if in_transaction[0]:
            statements.append(sql.split()[0])

    def began(conn: Any) -> None:
        # The write transaction's, not a read's (the rows read before it).
        if not conn.get_execution_options().get("hfa_read_only"):
            in_transaction[0] = True
            statements.append("BEGIN")

    def committed(_conn: Any) -> None:
        if in_transaction[0]:
            statements.append("COMMIT")
            in_transaction[0] = False

    def flushed(*_args: Any) -> None:
        flushes.append(1)

    monkeypatch.setattr(Prepared, "_run", run)
    engine = services.db.engine
    listeners: list[tuple[Any, str, Callable[..., None]]] = [
        (engine, "before_cursor_execute", seen),
        (engine, "begin", began),
        (engine, "commit", committed),
        (Session, "after_flush", flushed),
    ]
    for target, name, fn in listeners:
        event.listen(target, name, fn)
    try:
        assert process_batch(services, ids, read) == ["recorded"] * WRITE_CHUNK
    finally:
        for target, name, fn in listeners:
            event.remove(target, name, fn)
    assert flushes == []
    # The reads before the transaction (rows, recipients) are outside it.
    assert statements[0] == "BEGIN" and statements[-1] == "COMMIT"
    assert statements.count("BEGIN") == 1
    per_reply = STATEMENTS_PER_REPLY if services.db.is_sqlite else STATEMENTS_PER_REPLY_POSTGRES
    budget = WRITE_CHUNK * per_reply + STATEMENTS_PER_CHUNK
    assert len(statements) <= budget, statements
    # Recorded as before: a turn, a status change and a receipt each, in the same order.
    with services.db.read_only() as session:
        kinds = [
            kind
            for (kind,) in session.execute(
                select(Turn.kind).where(Turn.request_id == 1).order_by(Turn.seq)
            )
        ]
    assert kinds == ["request", "approval", "status_changed"]
    assert auditkit.verify(services).problems == []
