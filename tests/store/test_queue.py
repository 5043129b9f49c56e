"""Leased work rows: one UPDATE leases a claim, and held leases follow a changing set."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from gateway.clock import FrozenClock
from gateway.intake.filing import file_request
from gateway.services import build_services
from gateway.settings.config import Config
from gateway.store.models import OutboxItem
from gateway.store.queue import claim, kept_leases

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
LEASE = timedelta(seconds=0.3)


async def test_claimed_rows_carry_the_lease_they_were_given_and_held_ones_are_renewed(
    config: Config,
) -> None:
    clock = FrozenClock(NOW)
    services = build_services(config, clock=clock)
    try:
        with services.db.transaction() as session:
            for n in range(3):
                file_request(services, session, {"category": "legal_review", "request": f"{n}"})
        with services.db.transaction() as session:
            rows = claim(session, OutboxItem, now=NOW, lease=LEASE, limit=10, skip_locked=False)
        # The rows in hand say what the database now says, without being read again.
        assert [(r.attempts, r.lease_until) for r in rows] == [(1, NOW + LEASE)] * 3
        with services.db.reading() as session:
            stored = list(session.scalars(select(OutboxItem).order_by(OutboxItem.id)))
        assert [(r.attempts, r.lease_until) for r in stored] == [(1, NOW + LEASE)] * 3

        clock.advance(timedelta(minutes=1))
        first, second, third = (r.id for r in rows)
        async with kept_leases(services.db, clock.now, OutboxItem, LEASE) as held:
            held.update({first, second})
            held.discard(second)
            # Two renewals, every third of the lease.
            await asyncio.sleep(LEASE.total_seconds() * 0.8)
        with services.db.reading() as session:
            until = dict(session.execute(select(OutboxItem.id, OutboxItem.lease_until)).all())
        # Only the row still held was renewed; the others keep the lease they had.
        assert until == {
            first: clock.now() + LEASE,
            second: NOW + LEASE,
            third: NOW + LEASE,
        }
    finally:
        services.close()
