"""``bench.cpu``: the CPU each process spent during a load, by role, per operation."""

from __future__ import annotations

import time

from bench import cpu, procs
from bench.report import Figure, cpu_table
from tests.bench.proctree import running

# Spends about ``BURN`` seconds of CPU, then starts a child that looks like a reading
# process (its module named in its command line) and burns as much again there.
BURN = 0.4
_PARENT = f"""
import subprocess, sys, time
end = time.process_time() + {BURN}
while time.process_time() < end:
    pass
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], "gateway.inbound.reading"])
child.wait()
time.sleep(30)
"""
_CHILD = f"""
import time
end = time.process_time() + {BURN}
while time.process_time() < end:
    pass
time.sleep(30)
"""


def _until_child(pid: int, timeout: float = 20.0) -> list[int]:
    """Until the child has burnt its CPU and gone to sleep. Its CPU alone does not tell:
    it counts the interpreter's start too, which on a slow machine is a good part of it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = cpu.descendants(pid)
        if (
            found
            and cpu.process_cpu_seconds(found[0]) >= BURN
            and procs.process_state(found[0]) == "S"
        ):
            return found
        time.sleep(0.05)
    raise AssertionError("the child process did not start, burn its CPU and sleep")


def test_the_cpu_of_a_process_and_of_the_child_it_starts_is_counted_by_role() -> None:
    with (
        running("-c", _PARENT, _CHILD) as parent,
        cpu.spent({parent.pid: "listeners"}, follow=parent.pid, load=False) as spent,
    ):
        children = _until_child(parent.pid)
    assert len(children) == 1
    seconds = spent.seconds
    # The parent's burn and the child's (started during the block: counted from its start).
    assert seconds["listeners"] >= BURN * 0.8
    assert seconds["reading"] >= BURN * 0.8
    assert set(seconds) == {"listeners", "reading"}
    per = dict(spent.per(10))
    assert per["reading"] == 1000 * seconds["reading"] / 10


def test_cpu_spent_before_the_block_is_not_counted() -> None:
    with running("-c", _PARENT, _CHILD) as parent:
        _until_child(parent.pid)
        with cpu.spent({parent.pid: "listeners"}, follow=parent.pid) as spent:
            time.sleep(0.3)
    # Both were asleep throughout the block; the load (this process) only slept too.
    assert spent.seconds["listeners"] < BURN / 4
    assert spent.seconds["reading"] < BURN / 4
    assert spent.seconds["load"] < BURN / 4


def test_the_table_puts_each_row_beside_what_the_cores_allow_at_its_target() -> None:
    recorded = Figure(100.0, 1000.0, cpu_ms=(("worker", 3.0), ("load", 1.5)))
    submit = Figure(900.0, 30_000.0, cpu_ms=(("gateway", 0.45),))
    text = cpu_table({"recorded": recorded, "submit": submit, "status": Figure(1, 2)}, cores=2)
    lines = text.splitlines()
    assert len(lines) == 4  # heading, rule, the two rows that measured their CPU
    # 2 cores at 40% of 1,000 msg/s: 400 replies a second share 2,000 ms of CPU.
    assert "| 4 inbound recorded (visible) | worker 3.00, load 1.50 | 4.50 | 5.00 ms" in text
    # 2 cores at 35% of 30,000 req/s.
    assert "| gateway 0.45 | 0.45 | 0.19 ms (2 cores at 35% of 30,000 req/s)" in text
    assert cpu_table({"status": Figure(1, 2)}, cores=2) == ""
