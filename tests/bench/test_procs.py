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

from bench import cpu, procs
from tests.bench.proctree import running

# Spins, after starting a child that spins too.
_SPINNER = """
import subprocess, sys
subprocess.Popen([sys.executable, "-c", "while True: pass"])
while True:
    pass
"""


@contextmanager
def _spinning() -> Iterator[list[int]]:
    with running("-c", _SPINNER) as process:
        deadline = time.monotonic() + 20
        while not cpu.descendants(process.pid):
            assert time.monotonic() < deadline, "the spinner's child did not start"
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
