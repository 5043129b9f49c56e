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
import functools
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Integer, bindparam, or_, select, update
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
    due_column: str | None = None,
) -> list[Leased]:
    """Lease up to ``limit`` pending rows whose lease is free, counting an attempt on each.

    ``due_column``: only rows whose value there is at most ``now``, in its order.
    One statement: the rows are picked, leased and returned by one UPDATE, so in a
    :meth:`Database.statement` on PostgreSQL no row stays locked after it (a SELECT
    ... FOR UPDATE and then an UPDATE kept the batch locked until the COMMIT, and the
    deliveries of the batch before it waited to be marked sent).
    """
    statement = _claim_statement(model, skip_locked, due_column)
    rows = list(session.scalars(statement, {"now": now, "until": now + lease, "limit": limit}))
    # RETURNING follows no order: the batch is handed on in the order it was picked.
    if due_column is None:
        rows.sort(key=lambda row: row.id)
    else:
        rows.sort(key=lambda row: (getattr(row, due_column), row.id))
    return rows


@functools.cache
def _claim_statement(model: type[Leased], skip_locked: bool, due_column: str | None) -> Any:
    """The claim's UPDATE ... RETURNING, built once: a worker claims many times a second,
    and building the statement anew (and its cache key) cost more than running it."""
    now = bindparam("now", type_=model.lease_until.type)
    due: list[ColumnElement[bool]] = []
    order: list[Any] = []
    if due_column is not None:
        column = getattr(model, due_column)
        due.append(column <= now)
        order.append(column)
    pick = (
        select(model.id)
        .where(
            model.state == "pending",
            or_(model.lease_until.is_(None), model.lease_until < now),
            *due,
        )
        .order_by(*order, model.id)
        .limit(bindparam("limit", type_=Integer))
    )
    if skip_locked:
        pick = pick.with_for_update(skip_locked=True)
    return (
        update(model)
        .where(model.id.in_(pick.scalar_subquery()))
        .values(
            lease_until=bindparam("until", type_=model.lease_until.type),
            attempts=model.attempts + 1,
        )
        .returning(model)
        .execution_options(synchronize_session=False)
    )


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
