"""One writer at a time across processes, handed over without polling (SQLite only).

SQLite lets one transaction write at a time; a writer that finds the lock
taken sleeps and retries on ``busy_timeout``, with sleeps that grow to 100 ms.
With ``hfa serve``'s two processes both writing, that polling starved the
listeners: the worker took the lock again before the listeners' next retry.
Every write transaction therefore first takes an exclusive ``flock`` on a file
next to the database: a waiter sleeps in the kernel and is woken the moment
the holder lets go, and the kernel releases the lock of a process that dies.
Within a process, threads take turns on a lock of their own first (``flock``
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
    """The cross-process write lock of one SQLite database file."""

    def __init__(self, database: Path) -> None:
        self.path = database.with_name(database.name + "-writer.lock")
        self._threads = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._threads:
            if self._depth == 0:
                if self._fd is None:
                    self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
                fcntl.flock(self._fd, fcntl.LOCK_EX)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._fd is not None:
                    fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        with self._threads:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
