"""Waiting for a thread to change, without polling: one watcher per process.

Agents that want the answer as soon as it is on the record hold a long-poll
(``GET /v1/requests/{reference}?wait=``) or an event stream of the thread's
turns. Neither costs a task, a thread or a database query of its own: a waiter
is a future in a table keyed by request, with a timer for its bound. One watcher
task per process looks at the database's change marker (the highest turn id:
every change of a thread is a turn, a change of status included) every
``CHECK_SECONDS``; only when it moved does it read the marks of the waited-for
requests (one statement for all of them) and wake the waiters whose mark
changed. It reads the shared database, so a change committed by any process
(another HTTP instance, the inbound worker, the scheduler) wakes them; it stops
when nobody waits.

A request's ``Mark`` is its status, its number of turns, and its number of
turns an agent acts on: every turn but the system's and a reading held in its
correction window (``human/pending_decision``). A long-poll waits on the last
(a decision wakes it when it takes effect, never while it can still be
corrected); the event stream on the number of turns, as it sends every one.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from sqlalchemy import Integer, bindparam, case, func, select
from sqlalchemy.engine import Connection

from gateway.errors import FieldProblem, InvalidRequest, StorageError
from gateway.services import Services
from gateway.store.models import Request, Turn

log = logging.getLogger(__name__)

# How often the watcher looks at the change marker while someone waits: a change is
# seen within this (plus one read), far inside the second the promise allows.
CHECK_SECONDS = 0.2
# Marks are read for at most this many requests per statement (SQLite's variables).
CHUNK = 500
PENDING_KIND = "pending_decision"


class Mark(NamedTuple):
    """What a waiter compares: the status and two counts of turns."""

    status: str
    turns: int
    answer_turns: int

    @property
    def etag(self) -> str:
        # Weak: two answers with one mark mean the same to an agent (system turns aside).
        return f'W/"{self.status}.{self.answer_turns}"'


def counts_for_agent(author: str, kind: str) -> bool:
    return author != "system" and kind != PENDING_KIND


def mark_of(status: dict[str, Any]) -> Mark:
    """The mark of a status object as ``check_request_status`` returns it."""
    turns = status["turns"]
    answer = sum(1 for t in turns if counts_for_agent(t["author"], t["kind"]))
    return Mark(str(status["status"]), len(turns), answer)


def wait_seconds(value: str | None, most: float) -> float | None:
    """The ``wait`` query parameter: None when absent; bounded by ``most``."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        raise InvalidRequest(
            "wait must be a number of seconds, 0 or more",
            [FieldProblem("wait", f"a number of seconds from 0 to {most:g}, got {value[:40]!r}")],
        )
    return min(seconds, most)


_TURNS = Turn.__table__.c
_REQUESTS = Request.__table__.c
_MARKER = select(func.max(_TURNS.id))
_MARKS = (
    select(
        _REQUESTS.id,
        _REQUESTS.status,
        func.count(_TURNS.id),
        func.sum(
            case(
                ((_TURNS.author != "system") & (_TURNS.kind != PENDING_KIND), 1),
                else_=0,
            ).cast(Integer)
        ),
    )
    .select_from(Request.__table__.join(Turn.__table__, _TURNS.request_id == _REQUESTS.id))
    .where(_REQUESTS.id.in_(bindparam("ids", expanding=True)))
    .group_by(_REQUESTS.id, _REQUESTS.status)
)


def read_marker(conn: Connection) -> int:
    return int(conn.execute(_MARKER).scalar() or 0)


def read_marks(conn: Connection, numbers: Sequence[int]) -> dict[int, Mark]:
    marks: dict[int, Mark] = {}
    for start in range(0, len(numbers), CHUNK):
        rows = conn.execute(_MARKS, {"ids": list(numbers[start : start + CHUNK])})
        for number, status, turns, answer in rows:
            marks[int(number)] = Mark(str(status), int(turns), int(answer or 0))
    return marks


Changed = Callable[[Mark], bool]


class _Waiter:
    __slots__ = ("changed", "future", "number", "timer")

    def __init__(self, number: int, changed: Changed, future: asyncio.Future[Mark | None]):
        self.number = number
        self.changed = changed
        self.future = future
        self.timer: asyncio.TimerHandle | None = None


class Waiting:
    """The waiters of one process and the one watcher that wakes them."""

    def __init__(self, services: Services, check_seconds: float = CHECK_SECONDS) -> None:
        self._services = services
        self._check_seconds = check_seconds
        self._waiters: dict[int, list[_Waiter]] = {}
        self._watcher: asyncio.Task[None] | None = None
        self._marker: int | None = None
        # Set when a waiter joins: its baseline was read before it joined, so the
        # marks are read at the next look even if the marker did not move since.
        self._fresh = False
        self.closed = False

    def close(self) -> None:
        """Wake every waiter with no change, and every later one at once: the server stops."""
        self.closed = True
        for waiters in list(self._waiters.values()):
            for waiter in waiters:
                self._expire(waiter)

    @property
    def waiting(self) -> int:
        return sum(len(w) for w in self._waiters.values())

    async def until(self, number: int, changed: Changed, timeout: float) -> Mark | None:
        """The request's new mark once ``changed`` holds for it; None after ``timeout``."""
        if self.closed:
            return None
        loop = asyncio.get_running_loop()
        waiter = _Waiter(number, changed, loop.create_future())
        waiter.timer = loop.call_later(timeout, self._expire, waiter)
        self._waiters.setdefault(number, []).append(waiter)
        self._fresh = True
        if self._watcher is None or self._watcher.done():
            self._watcher = loop.create_task(self._watch(), name="hfa-waiting")
        try:
            return await waiter.future
        finally:
            waiter.timer.cancel()
            self._forget(waiter)

    def _expire(self, waiter: _Waiter) -> None:
        if not waiter.future.done():
            waiter.future.set_result(None)

    def _forget(self, waiter: _Waiter) -> None:
        found = self._waiters.get(waiter.number)
        if found is None:
            return
        if waiter in found:
            found.remove(waiter)
        if not found:
            del self._waiters[waiter.number]

    async def _watch(self) -> None:
        while self._waiters:
            await asyncio.sleep(self._check_seconds)
            try:
                await self._look()
            except StorageError:
                # Waiters keep waiting (to their bound); the next look tries again.
                log.warning("waiting: the database could not be read; trying again")

    async def _look(self) -> None:
        numbers = list(self._waiters)
        if not numbers:
            return
        fresh, self._fresh = self._fresh, False
        marker, marks = await self._services.db.run(self._read, numbers, fresh)
        if marks is None:
            return
        self._marker = marker
        self._wake(marks.items())

    def _read(self, numbers: list[int], fresh: bool) -> tuple[int, dict[int, Mark] | None]:
        with self._services.db.read_only_rows() as conn:
            marker = read_marker(conn)
            if marker == self._marker and not fresh:
                return marker, None
            return marker, read_marks(conn, numbers)

    def _wake(self, marks: Iterable[tuple[int, Mark]]) -> None:
        for number, mark in marks:
            for waiter in list(self._waiters.get(number, ())):
                if not waiter.future.done() and waiter.changed(mark):
                    waiter.future.set_result(mark)


def waiting_for(services: Services) -> Waiting:
    """The one ``Waiting`` of these services."""
    return services.shared(Waiting)
