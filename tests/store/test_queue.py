"""Leased work rows: one UPDATE leases a claim, and held leases follow a changing set."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, text, update

from gateway.clock import FrozenClock
from gateway.intake.filing import file_request
from gateway.services import Services, build_services
from gateway.settings.config import Config
from gateway.store.db import Database
from gateway.store.models import OutboxItem
from gateway.store.queue import claim, kept_leases, renew

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
LEASE = timedelta(seconds=0.3)


def file_three(services: Services) -> None:
    """Three filed requests: three lawyer emails waiting in the outbox."""
    with services.db.transaction() as session:
        for n in range(3):
            file_request(services, session, {"category": "legal_review", "request": f"{n}"})


async def test_claimed_rows_carry_the_lease_they_were_given_and_held_ones_are_renewed(
    config: Config,
) -> None:
    clock = FrozenClock(NOW)
    services = build_services(config, clock=clock)
    try:
        file_three(services)
        with services.db.transaction() as session:
            rows = claim(session, OutboxItem, now=NOW, lease=LEASE, limit=10, skip_locked=False)
        # The rows in hand say what the database now says, without being read again.
        assert [(r.attempts, r.lease_until) for r in rows] == [(1, NOW + LEASE)] * 3
        with services.db.read_only() as session:
            stored = list(session.scalars(select(OutboxItem).order_by(OutboxItem.id)))
        assert [(r.attempts, r.lease_until) for r in stored] == [(1, NOW + LEASE)] * 3

        clock.advance(timedelta(minutes=1))
        first, second, third = (r.id for r in rows)
        async with kept_leases(services.db, clock.now, OutboxItem, LEASE) as held:
            held.update({first, second})
            held.discard(second)
            # Two renewals, every third of the lease.
            await asyncio.sleep(LEASE.total_seconds() * 0.8)
        with services.db.read_only() as session:
            until = dict(session.execute(select(OutboxItem.id, OutboxItem.lease_until)).all())
        # Only the row still held was renewed; the others keep the lease they had.
        assert until == {
            first: clock.now() + LEASE,
            second: NOW + LEASE,
            third: NOW + LEASE,
        }
    finally:
        services.close()


def test_a_claim_and_a_renewal_leave_no_row_locked_while_their_caller_goes_on(
    config: Config,
) -> None:
    """On PostgreSQL a claim, and a lease pushed forward, commit as their statement ends:
    a writer of those rows (a delivery marked sent, the hold before DATA) never waits
    for the claiming process to get round to its COMMIT. On SQLite the write lock is
    the only lock, and the claim is still one statement that leases and returns."""
    clock = FrozenClock(NOW)
    services = build_services(config, clock=clock)
    try:
        file_three(services)
        db = services.db
        with db.statement() as session:
            rows = claim(
                session,
                OutboxItem,
                now=NOW,
                lease=LEASE,
                limit=2,
                skip_locked=not db.is_sqlite,
                due_column="next_attempt_at",
            )
            assert [(r.attempts, r.lease_until) for r in rows] == [(1, NOW + LEASE)] * 2
            assert [r.id for r in rows] == sorted(r.id for r in rows)
            if not db.is_sqlite:
                _update_without_waiting(db, [r.id for r in rows])
        with db.statement() as session:
            renew(session, OutboxItem, [r.id for r in rows], now=NOW, lease=LEASE * 10)
            if not db.is_sqlite:
                _update_without_waiting(db, [r.id for r in rows])
        with db.read_only() as session:
            stored = dict(session.execute(select(OutboxItem.id, OutboxItem.attempts)).all())
        # Two leased, each counted once; the third still waits for a claim.
        assert sorted(stored.values()) == [0, 1, 1]
    finally:
        services.close()


def _update_without_waiting(db: Database, ids: list[int]) -> None:
    """Another connection writes the rows at once, or fails: no lock waited for."""
    with db.engine.connect() as other:
        other.execute(text("SET LOCAL lock_timeout = '200ms'"))
        other.execute(update(OutboxItem).where(OutboxItem.id.in_(ids)).values(last_error="checked"))
        other.rollback()


def test_a_renewal_touches_only_leases_with_less_than_half_left(config: Config) -> None:
    """Rows with most of their lease left are not rewritten, and so not locked, by a renewal:
    a delivery that ends quickly is never made to wait for one."""
    services = build_services(config, clock=FrozenClock(NOW))
    try:
        with services.db.transaction() as session:
            file_request(services, session, {"category": "legal_review", "request": "r"})
        with services.db.statement() as session:
            (row,) = claim(session, OutboxItem, now=NOW, lease=LEASE, limit=1, skip_locked=False)
        with services.db.statement() as session:
            assert renew(session, OutboxItem, [row.id], now=NOW, lease=LEASE) == 0
        later = NOW + LEASE * 0.6
        with services.db.statement() as session:
            assert renew(session, OutboxItem, [row.id], now=later, lease=LEASE) == 1
        with services.db.read_only() as session:
            assert session.scalar(select(OutboxItem.lease_until)) == later + LEASE
    finally:
        services.close()


def test_claims_take_due_rows_in_order_with_one_statement_built_once(config: Config) -> None:
    # A worker claims many times a second: the statement is built once, and each claim
    # still sees its own moment (what is due, whose lease has lapsed) and its own limit.
    from gateway.store.queue import _claim_statement

    clock = FrozenClock(NOW)
    services = build_services(config, clock=clock)
    try:
        file_three(services)
        with services.db.transaction() as session:
            session.execute(
                update(OutboxItem)
                .where(OutboxItem.id == 2)
                .values(next_attempt_at=NOW + timedelta(minutes=5))
            )
        built = _claim_statement.cache_info().currsize
        claimed: list[list[int]] = []
        for moment, limit in ((NOW, 1), (NOW, 5), (NOW + timedelta(minutes=10), 5)):
            with services.db.statement() as session:
                rows = claim(
                    session,
                    OutboxItem,
                    now=moment,
                    lease=timedelta(hours=1),
                    limit=limit,
                    skip_locked=not services.db.is_sqlite,
                    due_column="next_attempt_at",
                )
                claimed.append([r.id for r in rows])
        # The earliest due first; row 2 only once it is due; a leased row not again.
        assert claimed == [[1], [3], [2]]
        assert _claim_statement.cache_info().currsize - built <= 1
    finally:
        services.close()
