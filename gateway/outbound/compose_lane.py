"""The worker's end of the composing process (``gateway.outbound.composer``).

Only a worker with a backlog uses it: one email costs about a millisecond to write,
which in the worker's own interpreter takes turns with its sending and its writes,
while the composing process writes a batch on the other core. It is started when a
claimed batch is large (``wanted``), never waited for (emails are written in the
worker until it has said hello), and it ends by itself once idle. Whatever goes
wrong with it (it ends, it is killed, it is stuck, an email fails in it) makes the
worker write those emails itself: the lane can make sending faster, never different.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import socket
import subprocess
import time
from collections import deque

from gateway.helper_process import start_helper
from gateway.outbound.composer import IDLE_SECONDS, Batch, Composed, frame

log = logging.getLogger(__name__)

# A claimed batch of at least this many emails starts the process: a worker sending a
# few emails at a time writes them faster itself than it could hand them over.
START_BATCH = 8
# One that cannot start, or that ended mid-batch, is started again at most this often.
RESTART_SECONDS = 30.0
# A batch not answered within this is given up, and the process with it (stuck).
ANSWER_SECONDS = 30.0
# The longest the process may take to say hello (its imports).
START_SECONDS = 60.0


def worth_a_process() -> bool:
    """Whether another core can write the emails: on one core the lane only adds work."""
    try:
        return len(os.sched_getaffinity(0)) > 1
    except AttributeError:  # not Linux
        return (os.cpu_count() or 1) > 1


class ComposeLane:
    """One composing process of one worker, used from its event loop."""

    def __init__(self, idle_seconds: float = IDLE_SECONDS) -> None:
        self.idle_seconds = idle_seconds
        self.process: subprocess.Popen[bytes] | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._reading: asyncio.Task[None] | None = None
        self._answers: deque[asyncio.Future[Composed | None]] = deque()
        self._ready = False
        self._next_start = 0.0
        # Emails written by the process since the worker started (for ops and tests).
        self.composed = 0

    @property
    def ready(self) -> bool:
        return self._ready

    async def wanted(self) -> None:
        """A large batch was claimed: start the process if it is not running (at most
        once in RESTART_SECONDS). Never waits for it to be ready."""
        if self.process is not None or time.monotonic() < self._next_start:
            return
        self._next_start = time.monotonic() + RESTART_SECONDS
        ours: socket.socket | None = None
        try:
            self.process, ours = start_helper("gateway.outbound.composer", repr(self.idle_seconds))
            reader, self._writer = await asyncio.open_connection(sock=ours)
        except OSError:
            log.warning("outbox: the composing process could not start", exc_info=True)
            if ours is not None:
                ours.close()
            await self._ended()
            return
        self._reading = asyncio.create_task(self._read(reader, self.process))

    async def compose(self, batch: Batch) -> Composed | None:
        """Each email of ``batch`` written by the process, in order; None when it cannot
        write them now (not ready, ended, stuck): the caller writes them itself."""
        writer = self._writer
        if not self._ready or writer is None:
            return None
        answer: asyncio.Future[Composed | None] = asyncio.get_running_loop().create_future()
        try:
            payload = frame(pickle.dumps(batch, protocol=5))
        except Exception:
            log.warning(
                "outbox: a batch could not be handed to the composing process", exc_info=True
            )
            return None
        # Appended and written with no await between: answers come back in this order.
        self._answers.append(answer)
        writer.write(payload)
        try:
            await writer.drain()
            return await asyncio.wait_for(asyncio.shield(answer), ANSWER_SECONDS)
        except TimeoutError:
            log.error(
                "outbox: the composing process gave no answer in %s s; replaced", ANSWER_SECONDS
            )
            await self._ended(kill=True)
            return None
        except (ConnectionError, OSError):
            await self._ended(kill=True)
            return None

    async def _read(self, reader: asyncio.StreamReader, process: subprocess.Popen[bytes]) -> None:
        try:
            await asyncio.wait_for(self._frame(reader), START_SECONDS)
            self._ready = True
            log.info(
                "outbox: composing process %s ready", self.process.pid if self.process else "?"
            )
            while True:
                # Pickled by our own composing process: a list of bytes and strings.
                composed: Composed = pickle.loads(await self._frame(reader))  # noqa: S301
                self.composed += sum(isinstance(c, bytes) for c in composed)
                answer = self._answers.popleft()
                if not answer.done():
                    answer.set_result(composed)
        except (asyncio.IncompleteReadError, TimeoutError, ConnectionError, OSError):
            # Ended (idle, killed, crashed) or never started: what it was asked is written
            # by the worker.
            pass
        except Exception:
            log.exception("outbox: the composing process answered nonsense; replaced")
        finally:
            # An idle process closed its end as it exits: let it end on its own. Unless it
            # was forgotten already, and another perhaps started in its place.
            if self.process is process:
                self._reading = None
                await self._ended()

    @staticmethod
    async def _frame(reader: asyncio.StreamReader) -> bytes:
        head = await reader.readexactly(4)
        return await reader.readexactly(int.from_bytes(head, "big"))

    async def _ended(self, *, kill: bool = False) -> None:
        """Forget the process (ending it if ``kill``); unanswered batches get None."""
        # All of this process's parts are taken at once, before any await: a process
        # started meanwhile (the worker goes on) has parts of its own, never touched here.
        process, writer, reading = self.process, self._writer, self._reading
        self.process, self._writer, self._reading, self._ready = None, None, None, False
        while self._answers:
            answer = self._answers.popleft()
            if not answer.done():
                answer.set_result(None)
        if writer is not None:
            writer.close()
        if process is not None:
            if kill and process.poll() is None:
                process.kill()
            try:
                await asyncio.to_thread(process.wait, 5)
            except subprocess.TimeoutExpired:
                process.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    await asyncio.to_thread(process.wait, 5)
        if reading is not None and reading is not asyncio.current_task():
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reading

    async def close(self) -> None:
        """End the process (the worker is stopping): closing our end tells it to stop."""
        writer, process = self._writer, self.process
        if writer is not None:
            writer.close()
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                await asyncio.to_thread(process.wait, 2)
        await self._ended(kill=True)
