"""The loop every background worker runs: work while there is work, else wait to be woken."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Literal

log = logging.getLogger(__name__)

FAILURE_PAUSE = 2.0


class Wakeup(asyncio.Event):
    """The event that wakes an idle worker, which can also wake one in another process.

    ``set`` is called where work is committed: on the loop, or (PostgreSQL work
    runs in worker threads) from another thread, in which case the waiters are
    woken on their own loop. Listeners added with ``also`` are called on every
    ``set``; ``hfa serve`` uses one to poke its worker process.
    """

    def __init__(self) -> None:
        super().__init__()
        self._listeners: list[Callable[[], None]] = []
        self._owner: asyncio.AbstractEventLoop | None = None
        self._owner_thread: int | None = None

    def also(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    async def wait(self) -> Literal[True]:
        self._owner, self._owner_thread = asyncio.get_running_loop(), threading.get_ident()
        return await super().wait()

    def set(self) -> None:
        owner = self._owner
        if (
            owner is not None
            and threading.get_ident() != self._owner_thread
            and not owner.is_closed()
        ):
            owner.call_soon_threadsafe(super().set)
        else:
            super().set()
        for listener in self._listeners:
            listener()


async def first_of(*events: asyncio.Event, timeout: float) -> None:
    """Wait until one of ``events`` is set, or ``timeout`` seconds have passed."""
    waits = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


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
