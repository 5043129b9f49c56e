"""A serving process's garbage collector walks what serving made, not what starting built.

A full collection visits every object the collector tracks. What a process builds to
start serving (the app and its routes, the templates, the ORM's tables) lives as long
as the process; left in sight, each full collection under load walked all of it (some
60 ms on the HTTP process). Each process freezes it once it has started. Counted, not
timed: the figures do not depend on the machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.serve_probe import held_by_each_process


@pytest.mark.parametrize(
    ("args", "processes"),
    [
        ((), ("listeners", "worker")),
        (("--role", "http"), ("one",)),
        (("--single-process",), ("one",)),
    ],
)
def test_a_serving_process_collects_only_what_serving_made(
    tmp_path: Path, args: tuple[str, ...], processes: tuple[str, ...]
) -> None:
    counts = held_by_each_process(tmp_path, *args)
    assert sorted(counts) == sorted(processes)
    for name, count in counts.items():
        # Tens of thousands of objects were built to start; a few thousand at most are
        # left for the collector once it has, however the gateway is run.
        frozen, tracked = count["frozen"], count["tracked"]
        assert frozen > 50_000, (name, frozen, tracked)
        assert tracked < frozen / 10, (name, frozen, tracked)
