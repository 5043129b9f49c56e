"""One writer at a time across processes: a waiter gets the lock as soon as it is let go."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from gateway.store.writelock import WriterLock

HOLD = """
import sys, time
from pathlib import Path
from gateway.store.writelock import WriterLock
lock = WriterLock(Path(sys.argv[1]))
with lock.held():
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
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


def test_a_waiter_gets_the_lock_when_the_other_process_lets_go(tmp_path: Path) -> None:
    database = tmp_path / "gateway.db"
    holder = hold_in_another_process(database, 0.5)
    started = time.monotonic()
    with WriterLock(database).held():
        waited = time.monotonic() - started
    holder.wait(timeout=10)
    # Not before the holder let go, and without a polling delay after it did.
    assert 0.3 < waited < 1.5


def test_a_killed_holder_leaves_no_lock_behind(tmp_path: Path) -> None:
    database = tmp_path / "gateway.db"
    holder = hold_in_another_process(database, 60)
    holder.kill()
    holder.wait(timeout=10)
    started = time.monotonic()
    with WriterLock(database).held():
        assert time.monotonic() - started < 1


def test_the_lock_is_reentrant_within_a_thread(tmp_path: Path) -> None:
    lock = WriterLock(tmp_path / "gateway.db")
    with lock.held(), lock.held():
        pass
    lock.close()


def test_try_hold_never_waits_and_refuses_while_another_process_holds(tmp_path: Path) -> None:
    database = tmp_path / "gateway.db"
    holder = hold_in_another_process(database, 0.5)
    lock = WriterLock(database)
    started = time.monotonic()
    assert lock.try_hold() is False
    assert time.monotonic() - started < 0.1
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
