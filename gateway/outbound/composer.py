"""Lawyer emails composed in a process of their own while the outbox has a backlog.

Composing an email (its templates in the lawyer's language, then its bytes) is the
largest part of the worker's CPU per email, and the worker's event loop is what
limits how fast a backlog drains. While a claimed batch holds at least BACKLOG
lawyer emails, they are composed in one child process beside the loop, in chunks of
CHUNK so that sending starts with the first chunk; a trickle is composed on the loop
(no process is started for it). The bytes are the ones the loop would have made
(``compose_bytes`` is the one function both use).

The child is started with the first backlog and ends after IDLE_SECONDS without
work, or by itself as soon as the worker that started it is gone (kill -9
included). It keeps nothing: an email it did not return (it died, or failed) is
composed on the loop instead, so a lost child costs time, never an email.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from gateway.outbound.compose import MailThread, compose_from_thread
from gateway.outbound.view import MailSettings
from gateway.render import Renderer
from gateway.store.models import OutboxItem

log = logging.getLogger(__name__)

# A claimed batch with this many lawyer emails is a backlog: composed in the child.
BACKLOG = 8
# Emails composed per call into the child: the first are sent while the rest are written.
CHUNK = 4
# The child ends once it has had no work for this long.
IDLE_SECONDS = 30.0
# How often the child looks for the worker that started it.
_PARENT_CHECK_SECONDS = 0.5


@dataclass(frozen=True)
class Letterhead:
    """What every lawyer email of this gateway shares: sender, loop marker, settings."""

    mail_from: str
    loop_marker: str
    settings: MailSettings


@dataclass(frozen=True)
class Job:
    """One lawyer email to compose: the outbox row, its thread and its reply address."""

    item: OutboxItem
    thread: MailThread
    reply_address: str


def compose_bytes(job: Job, letterhead: Letterhead, renderer: Renderer) -> bytes:
    """The email ``job`` stands for, as the bytes handed to the transport."""
    message = compose_from_thread(
        job.item,
        job.thread,
        renderer=renderer,
        mail_from=letterhead.mail_from,
        reply_address=job.reply_address,
        loop_marker=letterhead.loop_marker,
        settings=letterhead.settings,
    )
    return message.as_bytes()


# In the child: its renderer, made once by _child_started.
_child_renderer: Renderer | None = None


def _child_started(parent: int, templates: str) -> None:
    global _child_renderer
    _child_renderer = Renderer(Path(templates))
    # Ctrl-C in a terminal reaches the whole process group: the worker decides when
    # composing stops, not the child.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_end_with, args=(parent,), daemon=True).start()


def _end_with(parent: int) -> None:
    """End this child once the worker that started it is gone (it is then re-parented)."""
    while os.getppid() == parent:
        time.sleep(_PARENT_CHECK_SECONDS)
    os._exit(0)


def _compose_chunk(jobs: list[Job], letterhead: Letterhead) -> list[bytes]:
    assert _child_renderer is not None, "the composer child was not started"
    return [compose_bytes(job, letterhead, _child_renderer) for job in jobs]


class Composer:
    """The child process that composes a backlog, started when one first comes."""

    def __init__(self, templates: Path) -> None:
        self.templates = templates
        self._pool: ProcessPoolExecutor | None = None
        # The calls handed to the child not yet answered: it is not idle while there are any.
        self._calls: list[Future[list[bytes]]] = []
        self._last_used = 0.0
        self._idle_check: asyncio.TimerHandle | None = None

    def submit(self, jobs: Sequence[Job], letterhead: Letterhead) -> dict[int, Future[bytes]]:
        """Each job's email, by outbox item id, as it will be composed in the child.

        An empty answer (fewer than BACKLOG jobs, or no child could be started) means:
        compose them on the loop.
        """
        if len(jobs) < BACKLOG:
            return {}
        chunks = [list(jobs[i : i + CHUNK]) for i in range(0, len(jobs), CHUNK)]
        calls: list[tuple[list[Job], Future[list[bytes]]]] | None = None
        failure: Exception | None = None
        for _try in range(2):
            try:
                calls = self._handed(chunks, letterhead)
                break
            except BrokenProcessPool as exc:
                # The child died since the last backlog (its emails were composed by the
                # worker): the second try starts a new one.
                self.close()
                failure = exc
            except Exception as exc:
                failure = exc
                break
        if calls is None:
            log.warning("outbox: the composer process is unavailable", exc_info=failure)
            self.close()
            return {}
        self._last_used = time.monotonic()
        self._calls.extend(call for _chunk, call in calls)
        found: dict[int, Future[bytes]] = {}
        for chunk, call in calls:
            for index, job in enumerate(chunk):
                found[job.item.id] = _one_of(call, index)
        return found

    def _handed(
        self, chunks: list[list[Job]], letterhead: Letterhead
    ) -> list[tuple[list[Job], Future[list[bytes]]]]:
        pool = self._started()
        return [(chunk, pool.submit(_compose_chunk, chunk, letterhead)) for chunk in chunks]

    def _started(self) -> ProcessPoolExecutor:
        if self._pool is None:
            log.info("outbox: a backlog; its emails are composed in a process of their own")
            self._pool = ProcessPoolExecutor(
                1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_child_started,
                initargs=(os.getpid(), str(self.templates)),
            )
        return self._pool

    def keep_alive(self, loop: asyncio.AbstractEventLoop) -> None:
        """Called on the loop as each email is taken: the child ends once idle long enough."""
        self._last_used = time.monotonic()
        if self._pool is not None and self._idle_check is None:
            self._idle_check = loop.call_later(IDLE_SECONDS, self._end_if_idle, loop)

    def _end_if_idle(self, loop: asyncio.AbstractEventLoop) -> None:
        self._idle_check = None
        self._calls = [call for call in self._calls if not call.done()]
        if self._calls:
            self._last_used = time.monotonic()
        idle = time.monotonic() - self._last_used
        if idle >= IDLE_SECONDS:
            self.close()
        elif self._pool is not None:
            self._idle_check = loop.call_later(IDLE_SECONDS - idle, self._end_if_idle, loop)

    def close(self) -> None:
        """End the child (what it was composing is composed on the loop instead)."""
        if self._idle_check is not None:
            self._idle_check.cancel()
            self._idle_check = None
        pool, self._pool = self._pool, None
        self._calls = []
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def _one_of(call: Future[list[bytes]], index: int) -> Future[bytes]:
    """The ``index``-th email of a chunk's call, as a future of its own."""
    one: Future[bytes] = Future()

    def settle(done: Future[list[bytes]]) -> None:
        if done.cancelled():
            # The child was ended first: the worker composes it (never a cancelled send).
            one.set_exception(RuntimeError("the composer process was ended"))
        elif (error := done.exception()) is not None:
            one.set_exception(error)
        else:
            one.set_result(done.result()[index])

    call.add_done_callback(settle)
    return one
