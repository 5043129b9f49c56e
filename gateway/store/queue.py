"""Work rows claimed with a lease: inbound messages and outbox items alike.

A worker claims pending rows by setting ``lease_until``; until then no other worker
takes them. While it works on them it pushes the lease forward every third of a lease
(:func:`kept_leased`), so the lease can be short (HFA_LEASE_SECONDS, 20 s) however long
the work takes: a worker that dies leaves its lease to expire within that, and the
rows are claimed again by another. On PostgreSQL the claim skips rows another transaction has locked, so
workers in several processes never wait on each other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, or_, select, update
from sqlalchemy.orm import Session

from gateway.store.db import Database
from gateway.store.models import InboundMessage, OutboxItem

log = logging.getLogger(__name__)

Leased = TypeVar("Leased", InboundMessage, OutboxItem)


def claim(
    session: Session,
    model: type[Leased],
    *,
    now: datetime,
    lease: timedelta,
    limit: int,
    skip_locked: bool,
    where: Sequence[ColumnElement[bool]] = (),
    order_by: Sequence[Any] = (),
) -> list[Leased]:
    """Lease up to ``limit`` pending rows whose lease is free, counting an attempt on each.

    One statement: the rows are picked, leased and returned by one UPDATE, so in a
    :meth:`Database.statement` on PostgreSQL no row stays locked after it (a SELECT
    ... FOR UPDATE and then an UPDATE kept the batch locked until the COMMIT, and the
    deliveries of the batch before it waited to be marked sent).
    """
    pick = (
        select(model.id)
        .where(
            model.state == "pending",
            or_(model.lease_until.is_(None), model.lease_until < now),
            *where,
        )
        .order_by(*order_by, model.id)
        .limit(limit)
    )
    if skip_locked:
        pick = pick.with_for_update(skip_locked=True)
    rows = list(
        session.scalars(
            update(model)
            .where(model.id.in_(pick.scalar_subquery()))
            .values(lease_until=now + lease, attempts=model.attempts + 1)
            .returning(model)
            .execution_options(synchronize_session=False)
        )
    )
    # RETURNING follows no order: the batch is handed on in the order it was picked.
    keys: list[str] = [column.key for column in order_by]
    rows.sort(key=lambda row: (*(getattr(row, key) for key in keys), row.id))
    return rows


def renew(
    session: Session, model: type[Leased], ids: Sequence[int], *, now: datetime, lease: timedelta
) -> int:
    """Push the lease of the still-pending rows ``ids`` to ``now + lease`` where less than
    half of a lease is left; how many rows it pushed.

    A row with more left is not touched, and so not locked: most deliveries end well
    within half a lease, and a renewal that rewrote every row in flight made each of
    them wait for it to be marked sent. With a renewal every third of a lease, a row
    never has less than a sixth of one left. Never back: a row held longer on purpose
    (a message waiting for the answer to its dot) is left alone.

    On PostgreSQL a row locked right now is skipped, not waited for: it is this
    worker's own transaction recording it (done when that commits, renewed at the
    next round otherwise). Waiting made the renewal, and then the recording behind
    it, queue on each other.
    """
    due: tuple[ColumnElement[bool], ...] = (
        model.id.in_(list(ids)),
        model.state == "pending",
        model.lease_until < now + lease / 2,
    )
    if session.get_bind().dialect.name == "postgresql":
        free = select(model.id).where(*due).with_for_update(skip_locked=True).scalar_subquery()
        due = (model.id.in_(free), *due[1:])
    result = session.execute(
        update(model)
        .where(*due)
        .values(lease_until=now + lease)
        .execution_options(synchronize_session=False)
    )
    count: int = getattr(result, "rowcount", 0)
    return count


@asynccontextmanager
async def kept_leased(
    db: Database,
    now: Callable[[], datetime],
    model: type[Leased],
    ids: Sequence[int],
    lease: timedelta,
) -> AsyncIterator[None]:
    """Renew the lease of ``ids`` every third of ``lease`` while the block runs."""
    async with kept_leases(db, now, model, lease) as held:
        held.update(ids)
        yield


@asynccontextmanager
async def kept_leases(
    db: Database,
    now: Callable[[], datetime],
    model: type[Leased],
    lease: timedelta,
) -> AsyncIterator[set[int]]:
    """Renew, every third of ``lease``, the rows whose ids are in the set the block is given.

    A worker that keeps deliveries flowing adds each row as it claims it and removes it
    once its outcome is recorded; the renewal covers whatever is held at that moment.
    """
    held: set[int] = set()

    def push(ids: list[int]) -> None:
        with db.statement() as session:
            renew(session, model, ids, now=now(), lease=lease)

    async def keep() -> None:
        while True:
            await asyncio.sleep(lease.total_seconds() / 3)
            ids = sorted(held)
            if not ids:
                continue
            try:
                await db.run(push, ids)
            except Exception:
                # The lease may lapse and another worker take over: at-least-once, as before.
                log.warning("could not renew the lease of %s rows", len(ids), exc_info=True)

    task = asyncio.create_task(keep())
    try:
        yield held
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
