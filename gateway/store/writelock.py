"""One writer at a time across processes, handed over without polling (SQLite only).

SQLite lets one transaction write at a time; a writer that finds the lock
taken sleeps and retries on ``busy_timeout``, with sleeps that grow to 100 ms.
With ``hfa serve``'s two processes both writing, that polling starved the
listeners: the worker took the lock again before the listeners' next retry.
Every write transaction therefore first takes an exclusive ``flock`` on a file
next to the database: a waiter sleeps in the kernel and is woken the moment
the holder lets go, and the kernel releases the lock of a process that dies.
Within a process, threads take turns on a condition of their own first (``flock``
belongs to the open file, so it does not tell threads apart).
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class WriterLock:
    """The cross-process write lock of one SQLite database file.

    Held by a thread (re-entrantly, :meth:`held`), or taken by :meth:`try_hold` for
    work that starts on one thread and ends on another (a group commit written on
    the event loop and committed in a worker thread): then whichever thread
    finishes calls :meth:`release`, and every other taker waits until it does.
    """

    def __init__(self, database: Path) -> None:
        self.path = database.with_name(database.name + "-writer.lock")
        self._state = threading.Condition()
        # The holding thread's id, _HANDED_OFF, or None when free.
        self._owner: int | object | None = None
        self._depth = 0
        self._fd: int | None = None

    def _file(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        return self._fd

    @contextmanager
    def held(self) -> Iterator[None]:
        me = threading.get_ident()
        with self._state:
            while self._owner is not None and self._owner != me:
                self._state.wait()
            if self._owner is None:
                # Waiting here for another process keeps this process's other threads
                # waiting too (on the condition): one writer per process at a time.
                fcntl.flock(self._file(), fcntl.LOCK_EX)
                self._owner = me
            self._depth += 1
        try:
            yield
        finally:
            with self._state:
                self._depth -= 1
                if self._depth == 0:
                    self._let_go()

    def try_hold(self) -> bool:
        """Take the lock only if nobody holds it now; True if taken (then :meth:`release`).

        For a caller that must not wait (the event loop): when it is taken, the
        caller does its work elsewhere instead.
        """
        # Not even the condition is waited for: a thread of this process may hold it
        # while it waits for another process.
        if not self._state.acquire(blocking=False):
            return False
        try:
            if self._owner is not None:
                return False
            try:
                fcntl.flock(self._file(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            self._owner, self._depth = _HANDED_OFF, 1
            return True
        finally:
            self._state.release()

    def release(self) -> None:
        """Let go of a lock taken by :meth:`try_hold`, from any thread."""
        with self._state:
            assert self._owner is _HANDED_OFF
            self._depth = 0
            self._let_go()

    def _let_go(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._owner = None
        self._state.notify_all()

    def close(self) -> None:
        with self._state:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


# The owner while a lock taken by try_hold is held: no thread, whoever finishes lets go.
_HANDED_OFF = object()
