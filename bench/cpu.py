"""Where a path's CPU goes: each process of the gateway, and the load that drives it.

A row whose ratio misses its target says why in the same run: the CPU each
operation cost in every process taking part (the listeners, the worker, its
reading and composing processes, the load generator, the relay), read from
``/proc`` before and after the load, beside what the machine's cores allow
per operation at the target rate. Their sum above that allowance means the
target cannot be reached on this machine without cutting CPU, whatever the
gateway waits on.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from gateway.inbound.reading_lane import cpu_seconds

# The processes a gateway runs, by the module in their command line.
_HELPERS = {"gateway.inbound.reading": "reading", "gateway.outbound.composer": "composer"}


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU time of ``pid`` so far (all its threads); 0 once it is gone."""
    return cpu_seconds(pid) or 0.0


def children(pid: int) -> list[int]:
    """``pid``'s children, whichever of its threads started them."""
    found: list[int] = []
    for listed in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(p) for p in listed.read_text().split()]
        except OSError:
            continue
    return found


def descendants(pid: int) -> list[int]:
    """``pid``'s children and theirs."""
    found: list[int] = []
    for child in children(pid):
        found += [child, *descendants(child)]
    return found


def _role(pid: int, fallback: str) -> str:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return fallback
    for module, role in _HELPERS.items():
        if module.encode() in argv:
            return role
    return fallback


def gateway_roles(root: int, root_role: str) -> dict[int, str]:
    """The processes of the gateway started as ``root``: its own role, and its children's
    (a forked worker, a reading or composing process)."""
    return {root: root_role, **{pid: _role(pid, "worker") for pid in descendants(root)}}


def _by_role(roles: Mapping[int, str]) -> dict[int, tuple[str, float]]:
    return {pid: (role, process_cpu_seconds(pid)) for pid, role in roles.items()}


@dataclass
class CpuSpent:
    """CPU seconds by role over one measured load; ``per(n)`` as ms per operation."""

    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, role: str, seconds: float) -> None:
        self.seconds[role] = self.seconds.get(role, 0.0) + max(seconds, 0.0)

    def per(self, operations: int) -> tuple[tuple[str, float], ...]:
        if operations <= 0:
            return ()
        return tuple((role, 1000 * s / operations) for role, s in self.seconds.items())


@dataclass
class _Watch:
    before: dict[int, tuple[str, float]]
    load_before: float


def _load_cpu() -> float:
    """This process (the load generator, the poller) and its waited-for children (wrk,
    smtp-source), in CPU seconds."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


@contextmanager
def spent(
    processes: Mapping[int, str], *, follow: int | None = None, load: bool = True
) -> Iterator[CpuSpent]:
    """CPU spent during the block by ``processes`` (pid -> role), and by the processes
    that ``follow`` (a gateway's root pid) has started by the end of it (counted from
    their start when they started during the block); with ``load``, the load generator's
    as ``load``. The result is filled in when the block ends.
    """
    result = CpuSpent()

    def now_running() -> dict[int, str]:
        if follow is None:
            return dict(processes)
        return gateway_roles(follow, processes.get(follow, "gateway")) | dict(processes)

    watch = _Watch(_by_role(now_running()), _load_cpu())
    yield result
    for pid, (role, now) in _by_role(now_running()).items():
        result.add(role, now - watch.before.get(pid, (role, 0.0))[1])
    if load:
        result.add("load", _load_cpu() - watch.load_before)
