"""Which message a reply is a copy of: a second copy is a duplicate, found through the index."""

from __future__ import annotations

import pytest

from gateway.inbound.claims import claim_pending
from gateway.inbound.listener import store_inbound
from gateway.inbound.match import EarlierCopies
from gateway.inbound.worker import process_batch
from gateway.services import Services
from gateway.store.models import InboundMessage
from tests.conftest import LAWYER
from tests.inbound.batchkit import reply, reply_addresses, stored


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
