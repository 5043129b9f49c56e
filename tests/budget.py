"""Work budgets for tests of "fast": what a block may use, whatever the machine's load.

A wall-clock bound fails on a busy machine (another process holds the core) and passes
a slow algorithm on an idle one. The CPU time of the test's own thread counts only the
work this code did: a runaway regex or a quadratic loop takes minutes of it, a loaded
machine adds none. Timings themselves belong in ``hfa bench``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Fail when the block used more than ``seconds`` of this thread's CPU time."""
    started = time.thread_time()
    yield
    used = time.thread_time() - started
    assert used < seconds, f"used {used:.2f} s of CPU time; the budget is {seconds} s"


@dataclass
class CpuUse:
    """CPU seconds a block used: by the thread that ran it, and by the whole process."""

    thread: float = 0.0
    process: float = 0.0


@contextmanager
def cpu_use() -> Iterator[CpuUse]:
    """What the block used, filled in once it ends: for budgets on more than one figure
    (the event loop's own share, and the process's, its worker threads included)."""
    used = CpuUse()
    thread, process = time.thread_time(), time.process_time()
    yield used
    used.thread = time.thread_time() - thread
    used.process = time.process_time() - process
