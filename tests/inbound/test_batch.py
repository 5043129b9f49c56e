"""Replies recorded many to a transaction: one commit for a batch, one crash undoes its own."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from gateway.inbound import worker
from gateway.inbound.listener import store_inbound
from gateway.inbound.match import EarlierCopies
from gateway.inbound.reading import parse_stored
from gateway.inbound.worker import (
    WRITE_CHUNK,
    claim_pending,
    load_raw,
    process_batch,
)
from gateway.intake.filing import file_request
from gateway.services import Services
from gateway.store.models import InboundMessage, Recipient, Turn
from tests import auditkit
from tests.conftest import LAWYER, REPLY_DOMAIN


def reply_addresses(services: Services, count: int) -> list[str]:
    """``count`` requests filed, one lawyer reply address each."""
    addresses = []
    for n in range(count):
        with services.db.transaction() as session:
            file_request(services, session, {"category": "legal_review", "request": f"{n}"})
            recipient = session.scalars(select(Recipient).order_by(Recipient.id.desc())).first()
            assert recipient is not None
            addresses.append(services.tokens.reply_address(recipient.id, REPLY_DOMAIN))
    return addresses


def reply(address: str, n: int) -> bytes:
    return (
        f"From: {LAWYER}\r\nTo: {address}\r\nSubject: Re: request\r\n"
        f"Message-ID: <reply-{n}@lawfirm.example>\r\n\r\nApproved.\r\n"
    ).encode()


def stored(services: Services, addresses: list[str]) -> list[int]:
    return [
        store_inbound(services, reply(a, n), "127.0.0.1", LAWYER, [a])
        for n, a in enumerate(addresses)
    ]


def outcomes(services: Services) -> dict[int, tuple[str, str | None, int]]:
    with services.db.reading() as session:
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

    engine = services.db.engine
    event.listen(engine, "before_cursor_execute", seen)
    event.listen(engine, "commit", lambda _conn: commits.append(1))
    try:
        assert process_batch(services, ids, read) == ["recorded"] * WRITE_CHUNK
    finally:
        event.remove(engine, "before_cursor_execute", seen)
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
    with services.db.reading() as session:
        row = session.get(InboundMessage, broken)
        assert row is not None and row.lease_until is None and row.attempts == 1
    # The log and its mirror file hold nothing of what was undone.
    assert auditkit.verify(services).problems == []
    # Its retry records it.
    monkeypatch.setattr(worker, "process", real)
    assert claim_pending(services) == [broken]
    assert process_batch(services, [broken]) == ["recorded"]


def test_a_second_copy_in_the_same_batch_is_a_duplicate(services: Services) -> None:
    (address,) = reply_addresses(services, 1)
    raw = reply(address, 1)
    ids = [store_inbound(services, raw, "127.0.0.1", LAWYER, [address]) for _ in range(2)]
    assert claim_pending(services) == ids
    assert process_batch(services, ids) == ["recorded", "duplicate"]


def test_the_copy_stored_first_but_taken_second_is_the_duplicate(services: Services) -> None:
    """Two workers may take two copies of one reply in either order: the one recorded
    second is a duplicate, never a failure at every retry."""
    (address,) = reply_addresses(services, 1)
    raw = reply(address, 1)
    first, second = (store_inbound(services, raw, "127.0.0.1", LAWYER, [address]) for _ in range(2))
    assert claim_pending(services) == [first, second]
    assert process_batch(services, [second]) == ["recorded"]
    assert process_batch(services, [first]) == ["duplicate"]


def test_earlier_copies_are_found_through_the_message_id_index(services: Services) -> None:
    if not services.db.is_sqlite:
        pytest.skip("SQLite's planner, which has no statistics of the inbound table")
    (address,) = reply_addresses(services, 1)
    stored(services, [address] * 50)
    claim_pending(services)
    executed: list[str] = []

    with services.db.transaction() as session:
        last = session.get(InboundMessage, 50)
        assert last is not None
        # The statement runs on the driver's cursor: SQLite reports it with its values.
        driver = session.connection().connection.dbapi_connection
        assert driver is not None
        driver.set_trace_callback(executed.append)  # type: ignore[attr-defined]
        try:
            EarlierCopies(session, last)
        finally:
            driver.set_trace_callback(None)  # type: ignore[attr-defined]
        (sql,) = [q for q in executed if "rcpt_to" in q]
        plan = session.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}").all()
    assert "ix_inbound_message_id" in " ".join(str(step) for step in plan)
