"""``bench.procs.paused``: a gateway and the processes it started, stopped for a while.

Row 5 measures the gateway and raw aiosmtplib in turn, the gateway paused while
the other sends: the pause must stop every process of the gateway (its composing
and reading processes too), and let them all go on afterwards.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench import cpu, procs
from tests.bench.proctree import running

# Spins, after starting a child that spins too.
_SPINNER = """
import subprocess, sys
subprocess.Popen([sys.executable, "-c", "while True: pass"])
while True:
    pass
"""


def _both_spin(parent: int) -> bool:
    """The child runs its own program, and the parent is back from starting it: until the
    child has replaced itself with its program, its parent waits for it uninterruptibly
    (state D, vfork), and stays so if the child is stopped first."""
    children = cpu.descendants(parent)
    if not children or procs.process_state(parent) != "R":
        return False
    try:
        command = Path(f"/proc/{children[0]}/cmdline").read_bytes()
    except OSError:
        return False
    return b"while True" in command and procs.process_state(children[0]) == "R"


@contextmanager
def _spinning() -> Iterator[list[int]]:
    with running("-c", _SPINNER) as process:
        deadline = time.monotonic() + 20
        while not _both_spin(process.pid):
            assert time.monotonic() < deadline, "the spinner and its child did not start"
            time.sleep(0.02)
        yield [process.pid, *cpu.descendants(process.pid)]


def _cpu(pids: list[int]) -> list[float]:
    return [cpu.process_cpu_seconds(pid) for pid in pids]


def test_paused_stops_the_process_and_its_children_then_lets_them_go_on() -> None:
    with _spinning() as pids:
        with procs.paused(pids[0]):
            assert [procs.process_state(pid) for pid in pids] == ["T", "T"]
            before = _cpu(pids)
            time.sleep(0.3)
            # Stopped: not a tick of CPU meanwhile.
            assert _cpu(pids) == before
        assert all(procs.process_state(pid) != "T" for pid in pids)
        resumed = _cpu(pids)
        time.sleep(0.3)
        assert all(after > then for after, then in zip(_cpu(pids), resumed, strict=True))


def test_paused_lets_go_even_when_the_block_fails() -> None:
    with _spinning() as pids:
        with contextlib.suppress(RuntimeError), procs.paused(pids[0]):
            raise RuntimeError("the raw sender failed")
        assert all(procs.process_state(pid) != "T" for pid in pids)
