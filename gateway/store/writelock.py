"""One writer at a time across processes, handed over in turn, without polling (SQLite only).

SQLite lets one transaction write at a time; a writer that finds the lock
taken sleeps and retries on ``busy_timeout``, with sleeps that grow to 100 ms.
With ``hfa serve``'s two processes both writing, that polling starved the
listeners: the worker took the lock again before the listeners' next retry.
Every write transaction therefore first takes an exclusive ``flock`` on a file
next to the database: a waiter sleeps in the kernel and is woken the moment
the holder lets go, and the kernel releases the lock of a process that dies.

Waking is not enough: a writer with many short transactions in a row (the
chunks of a 25 MB message, each its own transaction) let go and took the lock
again before the woken waiter ran, so a filing waited for all fifty of them.
So the lock is handed over in turn:

- within a process, threads queue first-come first-served (``flock`` belongs to
  the open file, so it does not tell threads apart);
- across processes, a writer that must wait does so holding a second ``flock``,
  the turnstile, which it lets go once it has the lock. A holder that wants the
  lock again must pass the turnstile first, so it waits behind the writer
  already waiting instead of overtaking it.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections import deque
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
        self.turnstile_path = database.with_name(database.name + "-writer.turnstile")
        self._state = threading.Condition()
        # The holding thread's id, _HANDED_OFF, or None when free. A thread is the
        # owner from the moment its turn comes, while it still waits for other processes.
        self._owner: int | object | None = None
        self._depth = 0
        # Threads of this process waiting for their turn, first come first served.
        self._queue: deque[object] = deque()
        self._fd: int | None = None
        self._turnstile_fd: int | None = None

    def _file(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        return self._fd

    def _turnstile(self) -> int:
        if self._turnstile_fd is None:
            self._turnstile_fd = os.open(self.turnstile_path, os.O_RDWR | os.O_CREAT, 0o600)
        return self._turnstile_fd

    @contextmanager
    def held(self) -> Iterator[None]:
        me = threading.get_ident()
        with self._state:
            entered = self._owner == me
            if entered:
                self._depth += 1
            else:
                self._wait_for_turn(me)
        if not entered:
            try:
                # Outside the condition: this process's other threads queue meanwhile,
                # and a try_hold on the event loop is refused at once.
                self._take_across_processes()
            except BaseException:
                with self._state:
                    self._owner, self._depth = None, 0
                    self._state.notify_all()
                raise
        try:
            yield
        finally:
            with self._state:
                self._depth -= 1
                if self._depth == 0:
                    self._let_go()

    def waiting(self) -> int:
        """How many threads of this process wait for their turn."""
        with self._state:
            return len(self._queue)

    def _wait_for_turn(self, me: int) -> None:
        """Queue behind this process's earlier takers; called holding the condition."""
        turn = object()
        self._queue.append(turn)
        try:
            while self._owner is not None or self._queue[0] is not turn:
                self._state.wait()
        except BaseException:
            self._queue.remove(turn)
            self._state.notify_all()
            raise
        self._queue.popleft()
        self._owner, self._depth = me, 1

    def _take_across_processes(self) -> None:
        turnstile = self._turnstile()
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(self._file(), fcntl.LOCK_EX)
        finally:
            fcntl.flock(turnstile, fcntl.LOCK_UN)

    def try_hold(self) -> bool:
        """Take the lock only if nobody holds it or waits for it now; True if taken (then
        :meth:`release`).

        For a caller that must not wait (the event loop): when it is taken, the
        caller does its work elsewhere instead.
        """
        if not self._state.acquire(blocking=False):
            return False
        try:
            if self._owner is not None or self._queue:
                return False
            turnstile = self._turnstile()
            try:
                # Held by a writer of another process that waits for the lock: its turn.
                fcntl.flock(turnstile, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            try:
                fcntl.flock(self._file(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            finally:
                fcntl.flock(turnstile, fcntl.LOCK_UN)
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
            for fd in (self._fd, self._turnstile_fd):
                if fd is not None:
                    os.close(fd)
            self._fd = self._turnstile_fd = None


# The owner while a lock taken by try_hold is held: no thread, whoever finishes lets go.
_HANDED_OFF = object()
