"""The retention job: content past HFA_RETENTION goes, on a schedule, once per cluster.

Each run is claimed through the ``schedules`` table (one process runs it, whichever
role runs the scheduler), at most every hour and about four times within the shortest
period kept. Messages and emails past ``raw`` lose their bytes (their hash stays),
attachments past ``attachments`` theirs, and requests that ended and were untouched for
``texts`` are erased as ``hfa requests erase`` does, reason ``retention``. A run that
removed anything rewrites this host's audit.jsonl and reclaims the database's freed
space, and says what it did in one audit entry.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from gateway.errors import StorageError
from gateway.runner import Runner
from gateway.services import Services
from gateway.store import erasure
from gateway.store.mirror import apply_erasures
from gateway.store.models import Request, Schedule

log = logging.getLogger("gateway.retention")

JOB = "retention"
MAX_INTERVAL = 3600.0
ENDED = ("answered", "declined", "closed")
# Requests erased per run: a first run over years of requests does not hold the
# database for long; the next run goes on.
ERASE_BATCH = 200


@dataclass
class Purged:
    raw: int = 0
    attachments: int = 0
    erased: int = 0

    def any(self) -> bool:
        return bool(self.raw or self.attachments or self.erased)


def interval(services: Services) -> float | None:
    """Seconds between runs; None: nothing has a retention period."""
    shortest = services.config.retention.shortest()
    if shortest is None:
        return None
    return min(MAX_INTERVAL, max(services.config.scheduler_seconds, shortest / 4))


def claim(services: Services, now: datetime, every: float) -> bool:
    """True for the one process that runs this interval's retention."""
    with services.db.transaction() as session:
        result = session.execute(
            update(Schedule)
            .where(Schedule.name == JOB, Schedule.next_run_at <= now)
            .values(next_run_at=now + timedelta(seconds=every))
            .execution_options(synchronize_session=False)
        )
        if getattr(result, "rowcount", 0):
            return True
        if session.get(Schedule, JOB) is not None:
            return False
    try:
        with services.db.transaction() as session:
            session.add(Schedule(name=JOB, next_run_at=now + timedelta(seconds=every)))
        return True
    except StorageError as exc:
        if isinstance(exc.__cause__, IntegrityError):
            return False  # another process created the row first
        raise


def run(services: Services) -> Purged:
    """Remove what is past its retention period now; returns how much."""
    keep = services.config.retention
    now = services.clock.now()
    done = Purged()
    if keep.raw is not None:
        with services.db.transaction() as session:
            done.raw = erasure.purge_raw(session, now - timedelta(seconds=keep.raw))
    if keep.attachments is not None:
        with services.db.transaction() as session:
            before = now - timedelta(seconds=keep.attachments)
            done.attachments = erasure.purge_attachments(session, before)
    if keep.texts is not None:
        done.erased = _erase_texts(services, now, keep.texts)
    if done.any():
        with services.db.transaction() as session:
            services.audit.append(
                session,
                "retention.purged",
                at=now,
                details={"raw": done.raw, "attachments": done.attachments, "erased": done.erased},
            )
        if done.erased and services.audit.mirror is not None:
            apply_erasures(services.audit.mirror, services.db.engine)
        erasure.reclaim(services.db)
    return done


def _erase_texts(services: Services, now: datetime, kept: float) -> int:
    before = now - timedelta(seconds=kept)
    with services.db.read_only() as session:
        due = erasure.expired_requests(session, before, ENDED)[:ERASE_BATCH]
    reason = f"retention: texts are kept {services.config.raw['retention']}"
    erased = 0
    # One transaction per request, so one bad row never holds back the rest.
    for request_id in due:
        try:
            with services.db.transaction() as session:
                request = session.get(Request, request_id)
                if request is None or erasure.erased_marker(request) is not None:
                    continue
                erasure.erase_request(
                    session, services.audit, request, at=now, by="retention", reason=reason
                )
            erased += 1
        except StorageError:
            log.exception("erasing request %s for retention failed; retried next run", request_id)
    return erased


def tick(services: Services) -> Purged | None:
    every = interval(services)
    if every is None or not claim(services, services.clock.now(), every):
        return None
    return run(services)


async def _purge(services: Services) -> None:
    # In a thread even on SQLite: reclaiming space rewrites the file, for a while.
    await asyncio.to_thread(tick, services)


async def _loop(services: Services, stop: asyncio.Event) -> None:
    if interval(services) is None:
        return
    # Every HFA_SCHEDULER_SECONDS: claim() lets one process run once per interval.
    await Runner(
        "retention run failed; retrying",
        services.config.scheduler_seconds,
        iteration=partial(_purge, services),
        logger=log,
    ).run(stop)


def start(services: Services, stop: asyncio.Event) -> asyncio.Task[None]:
    """The retention job's loop (it ends at once when HFA_RETENTION is empty)."""
    return asyncio.create_task(_loop(services, stop))
