"""The loop every background worker runs: work while there is work, else wait to be woken.

In the shape of Mailman's core runner: ``Runner.run`` is the loop, a role writes
only its iteration (what it does with one batch, or one tick) and says how it
waits. ``ThreadRunner`` is the same loop for a role that runs in a thread of its
own (the audit sequencer).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import ClassVar, Literal

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


Iteration = Callable[[], Awaitable[int | None]]


class Runner:
    """A background role's loop, until ``stop``.

    Each iteration returns how much it did: when something, the next one starts at
    once, since more may be waiting; when nothing (0 or None), ``_snooze`` waits for
    the wake-up (work committed in this process), ``stop``, or ``poll_seconds`` (work
    committed by other processes, or due by the clock). An iteration that raises is
    logged and followed by ``_pause``, which new work does not cut short: the work it
    held is retried by its lease. ``stop`` is looked at between iterations, never inside
    one, so work in flight ends as it would have.

    The iteration is given as ``iteration``, or written by a subclass as
    ``_one_iteration`` (as ``threading.Thread`` takes ``target`` or an own ``run``).
    """

    def __init__(
        self,
        failure: str,
        poll_seconds: float,
        *,
        iteration: Iteration | None = None,
        wakeup: asyncio.Event | None = None,
        failure_pause: float | None = None,
        logger: logging.Logger = log,
        failure_level: int = logging.ERROR,
        snooze_first: bool = False,
    ) -> None:
        self.failure, self.logger, self.failure_level = failure, logger, failure_level
        self.poll_seconds, self.wakeup, self.snooze_first = poll_seconds, wakeup, snooze_first
        # Unless said otherwise, a failed iteration is tried again at the next poll.
        self.failure_pause = poll_seconds if failure_pause is None else failure_pause
        self._iteration = iteration

    async def run(self, stop: asyncio.Event) -> None:
        if self.snooze_first:
            await self._snooze(stop)
        while not stop.is_set():
            try:
                done = await self._one_iteration()
            except Exception:
                self.logger.log(self.failure_level, self.failure, exc_info=True)
                await self._pause(stop)
                continue
            if not done:
                await self._snooze(stop)

    async def _one_iteration(self) -> int | None:
        if self._iteration is None:
            raise NotImplementedError("a Runner needs an iteration")
        return await self._iteration()

    async def _snooze(self, stop: asyncio.Event) -> None:
        """Wait for the wake-up, ``stop`` or the next poll; a wake-up set before is spent."""
        if self.wakeup is None:
            await first_of(stop, timeout=self.poll_seconds)
            return
        self.wakeup.clear()
        await first_of(self.wakeup, stop, timeout=self.poll_seconds)

    async def _pause(self, stop: asyncio.Event) -> None:
        """After a failure: the database is likely busy (another process holds SQLite's
        write lock) or away, and pausing leaves the event loop to HTTP and SMTP, which
        answer 503/451 meanwhile. So new work does not cut the pause short, unless it is
        no longer than a poll: then it is an idle worker's wait."""
        if self.wakeup is not None and self.failure_pause <= self.poll_seconds:
            await self._snooze(stop)
            return
        await first_of(stop, timeout=self.failure_pause)


def paused_after_failure(poll_seconds: float) -> float:
    """The pause of a worker whose iterations hit the database at once: at least
    ``FAILURE_PAUSE``, so a database that is away is not hammered every poll."""
    return max(poll_seconds, FAILURE_PAUSE)


class ThreadRunner:
    """``Runner``'s loop for a role that runs in a thread of its own.

    For work that waits on the network or on a lock and must not stall the event
    loop, not even between iterations. ``run_in_thread`` starts the thread and, on
    ``stop``, lets the iteration under way end and waits for the thread. A subclass
    writes ``_one_iteration``, and may time ``_snooze`` and ``_pause`` itself and
    clean up in ``_finish``.
    """

    thread_name: ClassVar[str] = "hfa-runner"

    def __init__(
        self,
        failure: str,
        poll_seconds: float,
        *,
        failure_pause: float | None = None,
        logger: logging.Logger = log,
    ) -> None:
        self.failure, self.logger, self.poll_seconds = failure, logger, poll_seconds
        self.failure_pause = poll_seconds if failure_pause is None else failure_pause

    async def run_in_thread(self, stop: asyncio.Event) -> None:
        halt = threading.Event()
        thread = threading.Thread(target=self.run, args=(halt,), name=self.thread_name, daemon=True)
        thread.start()
        try:
            await stop.wait()
        finally:
            halt.set()
            await asyncio.to_thread(thread.join)

    def run(self, halt: threading.Event) -> None:
        try:
            while not halt.is_set():
                try:
                    done = self._one_iteration()
                except Exception:
                    self.logger.exception(self.failure)
                    self._pause(halt)
                    continue
                if not done:
                    self._snooze(halt)
        finally:
            self._finish()

    def _one_iteration(self) -> int | None:
        raise NotImplementedError

    def _snooze(self, halt: threading.Event) -> None:
        halt.wait(self.poll_seconds)

    def _pause(self, halt: threading.Event) -> None:
        halt.wait(self.failure_pause)

    def _finish(self) -> None:
        """What the thread does last, however its loop ended."""
