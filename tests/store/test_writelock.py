"""One writer at a time across processes: a waiter gets the lock as soon as it is let go,
before a writer that lets go and takes it again."""

from __future__ import annotations

import fcntl
import os
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
    # No polling: one blocking wait for the turnstile and one for the lock, each woken
    # by the kernel when it is let go.
    waits = [op for op in calls if op & fcntl.LOCK_EX]
    assert waits == [fcntl.LOCK_EX, fcntl.LOCK_EX]


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


# A writer of many short transactions in a row, as a large message's chunks are written:
# it lets go and takes the lock again at once, and counts them in a file.
BACK_TO_BACK = """
import os, sys, time
from pathlib import Path
from gateway.store.writelock import WriterLock
os.sched_setaffinity(0, {int(sys.argv[4])})
lock = WriterLock(Path(sys.argv[1]))
count = os.open(sys.argv[3], os.O_RDWR | os.O_CREAT)
for done in range(1, int(sys.argv[2]) + 1):
    with lock.held():
        os.pwrite(count, b"%08d" % done, 0)
        if done == 1:
            print("first", flush=True)
        busy_until = time.perf_counter() + 0.002
        while time.perf_counter() < busy_until:
            pass
"""

# A writer on a core that another process keeps busy, as on a loaded machine: woken
# when the lock is let go, it may not run before the lock is taken again. It takes the
# lock a few times and says, for each, how many of the other writer's transactions
# were committed from when it asked until it had the lock.
ON_A_BUSY_CORE = """
import os, sys, time
from pathlib import Path
from gateway.store.writelock import WriterLock
os.sched_setaffinity(0, {int(sys.argv[3])})
lock = WriterLock(Path(sys.argv[1]))
count = os.open(sys.argv[2], os.O_RDONLY)
for _ in range(int(sys.argv[4])):
    asked = int(os.pread(count, 8, 0))
    with lock.held():
        print(int(os.pread(count, 8, 0)) - asked, flush=True)
    time.sleep(0.02)
"""

HOG = """
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
until = time.monotonic() + float(sys.argv[2])
while time.monotonic() < until:
    pass
"""


def _python(script: str, *args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)], stdout=subprocess.PIPE, text=True
    )


@pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs two cores to pin the writers to",
)
def test_a_writer_of_another_process_waits_for_one_transaction_not_for_a_run_of_them(
    tmp_path: Path,
) -> None:
    first, second = sorted(os.sched_getaffinity(0))[:2]
    database, count = tmp_path / "gateway.db", tmp_path / "count"
    hog = _python(HOG, second, 30)
    run = _python(BACK_TO_BACK, database, 5000, count, first)
    try:
        assert run.stdout is not None and run.stdout.readline().strip() == "first"
        waiter = _python(ON_A_BUSY_CORE, database, count, second, 8)
        out, _ = waiter.communicate(timeout=60)
    finally:
        for child in (hog, run):
            child.kill()
            child.wait(timeout=10)
    waits = [int(line) for line in out.split()]
    assert len(waits) == 8
    # The transaction under way when it asked, at most one more, then its own: without
    # the turnstile the other writer took the lock again first, dozens of times.
    assert max(waits) <= 2, f"transactions waited for, each time: {waits}"


def test_threads_of_one_process_take_the_lock_in_the_order_they_asked(tmp_path: Path) -> None:
    lock = WriterLock(tmp_path / "gateway.db")
    order: list[str] = []
    asked = threading.Event()

    def once() -> None:
        asked.set()
        with lock.held():
            order.append("once")

    def back_to_back() -> None:
        for n in range(50):
            with lock.held():
                order.append(f"run {n}")
                if n == 0:
                    threading.Thread(target=once).start()
                    asked.wait(timeout=5)
                    # Until it queues; bounded, so a broken queue fails rather than hangs.
                    for _ in range(500):
                        if lock.waiting():
                            break
                        time.sleep(0.01)
                time.sleep(0.001)

    runner = threading.Thread(target=back_to_back)
    runner.start()
    runner.join(timeout=30)
    assert order.index("once") == 1, order[:5]
    lock.close()


def test_try_hold_is_refused_while_a_thread_waits_its_turn(tmp_path: Path) -> None:
    lock = WriterLock(tmp_path / "gateway.db")
    queued = threading.Event()
    got: list[bool] = []
    with lock.held():

        def waiter() -> None:
            queued.set()
            with lock.held():
                got.append(True)

        thread = threading.Thread(target=waiter)
        thread.start()
        queued.wait(timeout=5)
        for _ in range(500):
            if lock.waiting():
                break
            time.sleep(0.01)
        assert lock.waiting() == 1
    # Let go: the waiting thread's turn, not a try on the event loop that came later.
    had_its_turn = bool(got)
    taken = lock.try_hold()
    if taken:
        lock.release()
    thread.join(timeout=5)
    assert not (taken and not had_its_turn), "try_hold overtook a thread waiting its turn"
    assert got == [True]
    lock.close()
