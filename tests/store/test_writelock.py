"""One writer at a time across processes: a waiter gets the lock as soon as it is let go."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gateway.store.writelock import WriterLock

HOLD = """
import sys, time
from pathlib import Path
from gateway.store.writelock import WriterLock
lock = WriterLock(Path(sys.argv[1]))
with lock.held():
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
    print("letting go", flush=True)
"""


def hold_in_another_process(database: Path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(database), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_waiter_gets_the_lock_when_the_other_process_lets_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = tmp_path / "gateway.db"
    holder = hold_in_another_process(database, 0.5)
    calls: list[int] = []
    real_flock = fcntl.flock

    def counted(fd: int, operation: int) -> None:
        calls.append(operation)
        real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", counted)
    with WriterLock(database).held():
        assert holder.stdout is not None
        # Not before the holder let go: it said so before it did.
        assert holder.stdout.readline().strip() == "letting go"
    holder.wait(timeout=10)
    # No polling: one blocking wait, woken by the kernel when the lock is let go.
    waits = [op for op in calls if op & fcntl.LOCK_EX]
    assert waits == [fcntl.LOCK_EX]


def test_a_killed_holder_leaves_no_lock_behind(tmp_path: Path) -> None:
    database = tmp_path / "gateway.db"
    holder = hold_in_another_process(database, 60)
    holder.kill()
    holder.wait(timeout=10)
    lock = WriterLock(database)
    # Free at once: the kernel let go of a dead holder's lock.
    assert lock.try_hold() is True
    lock.release()
    lock.close()


def test_the_lock_is_reentrant_within_a_thread(tmp_path: Path) -> None:
    lock = WriterLock(tmp_path / "gateway.db")
    with lock.held(), lock.held():
        pass
    lock.close()


def test_try_hold_never_waits_and_refuses_while_another_process_holds(tmp_path: Path) -> None:
    database = tmp_path / "gateway.db"
    holder = hold_in_another_process(database, 0.5)
    lock = WriterLock(database)
    # A try that waited would have got the lock once the holder let go.
    assert lock.try_hold() is False
    assert holder.poll() is None
    holder.wait(timeout=10)
    assert lock.try_hold() is True
    lock.release()
    lock.close()


def test_a_handed_off_lock_is_let_go_by_another_thread_and_waiters_then_get_it(
    tmp_path: Path,
) -> None:
    lock = WriterLock(tmp_path / "gateway.db")
    assert lock.try_hold()
    got: list[float] = []

    def waiter() -> None:
        with lock.held():
            got.append(time.monotonic())

    thread = threading.Thread(target=waiter)
    thread.start()
    time.sleep(0.2)
    assert got == []  # the hand-off holds it, whichever thread asks
    assert lock.try_hold() is False
    released = time.monotonic()
    threading.Thread(target=lock.release).start()
    thread.join(timeout=5)
    assert got and got[0] >= released
    lock.close()
