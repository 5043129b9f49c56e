"""The loop every background worker runs: work while there is work, else wait to be woken."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

FAILURE_PAUSE = 2.0


async def run_until_stopped(
    name: str,
    run_once: Callable[[], Awaitable[int]],
    ready: asyncio.Event,
    poll_seconds: float,
    stop: asyncio.Event,
) -> None:
    """Call ``run_once`` until ``stop``; when it found nothing, sleep until ``ready`` or a poll.

    The event wakes the worker as soon as new work is committed in this process;
    the poll finds work committed by other processes. An iteration that fails is
    logged and the loop goes on: the work it held is retried by its lease.
    """
    while not stop.is_set():
        wait = poll_seconds
        try:
            done = await run_once()
        except Exception:
            log.exception("%s worker iteration failed; retrying", name)
            done = 0
            # The database is likely busy (another process holds SQLite's write lock) or
            # away: pausing leaves the event loop to HTTP and SMTP, which answer 503/451.
            wait = max(poll_seconds, FAILURE_PAUSE)
        if done:
            continue
        ready.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for((stop if wait > poll_seconds else ready).wait(), timeout=wait)
