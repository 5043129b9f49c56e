"""Claiming stored messages for the inbound worker: a lease on each, oldest first.

The claim counts an attempt on each message, so one that crashes the worker again
and again ends as ``failed`` (``worker.MAX_ATTEMPTS``) rather than being retried for
ever; a lease that runs out (the worker died) lets the next claim take it again.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import bindparam, or_, select, update

from gateway.services import Services
from gateway.store import blobs
from gateway.store.models import InboundMessage

BATCH = 32


def lease_for(services: Services) -> timedelta:
    return timedelta(seconds=services.config.lease_seconds)


# Claiming, as prebuilt statements (no row objects: the claim only needs the ids).
_CLAIMABLE = (
    select(InboundMessage.id)
    .where(
        InboundMessage.state == "pending",
        or_(InboundMessage.lease_until.is_(None), InboundMessage.lease_until < bindparam("now")),
    )
    .order_by(InboundMessage.id)
    .limit(bindparam("limit"))
)
# PostgreSQL: workers in several processes skip each other's rows, never wait on them.
_CLAIMABLE_SKIPPING = _CLAIMABLE.with_for_update(skip_locked=True)
_LEASE = (
    update(InboundMessage)
    .where(InboundMessage.id.in_(bindparam("ids", expanding=True)))
    .values(lease_until=bindparam("until"), attempts=InboundMessage.attempts + 1)
)


def claim_pending(services: Services, limit: int = BATCH) -> list[int]:
    """Lease stored messages waiting to be processed, oldest first."""
    now = services.clock.now()
    query = _CLAIMABLE if services.db.is_sqlite else _CLAIMABLE_SKIPPING
    with services.db.transaction() as session:
        connection = session.connection()
        ids = list(connection.execute(query, {"now": now, "limit": limit}).scalars())
        if ids:
            connection.execute(_LEASE, {"ids": ids, "until": now + lease_for(services)})
        return ids


def load_raw(services: Services, ids: list[int]) -> dict[int, bytes]:
    """The claimed messages' bytes, read once: the reading process and every later step
    take them from here."""
    with services.db.read_only() as session:
        return blobs.raws(session, ids)
