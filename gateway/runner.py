"""The loop every background worker runs: work while there is work, else wait to be woken."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)


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
        try:
            done = await run_once()
        except Exception:
            log.exception("%s worker iteration failed; retrying", name)
            done = 0
        if done:
            continue
        ready.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ready.wait(), timeout=poll_seconds)
