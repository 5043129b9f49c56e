"""Work rows claimed with a lease: inbound messages and outbox items alike.

A worker claims pending rows by setting ``lease_until``; until then no other worker
takes them. A worker that dies leaves its lease to expire, and the rows are claimed
again. On PostgreSQL the claim skips rows another transaction has locked, so
workers in several processes never wait on each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, or_, select
from sqlalchemy.orm import Session

from gateway.store.models import InboundMessage, OutboxItem

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
    """Lease up to ``limit`` pending rows whose lease is free, counting an attempt on each."""
    query = (
        select(model)
        .where(
            model.state == "pending",
            or_(model.lease_until.is_(None), model.lease_until < now),
            *where,
        )
        .order_by(*order_by, model.id)
        .limit(limit)
    )
    if skip_locked:
        query = query.with_for_update(skip_locked=True)
    rows = list(session.scalars(query))
    for row in rows:
        row.lease_until = now + lease
        row.attempts += 1
    return rows
