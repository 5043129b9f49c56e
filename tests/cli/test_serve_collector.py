"""A serving process's garbage collector walks what serving made, not what starting built.

A full collection visits every object the collector tracks. What a process builds to
start serving (the app and its routes, the templates, the ORM's tables) lives as long
as the process; left in sight, each full collection under load walked all of it (some
60 ms on the HTTP process). Each process freezes it once it has started. Counted, not
timed: the figures do not depend on the machine.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.cli.test_run import free_port, gateway_env, wait_until

# Each serving coroutine, as it ends, writes what its collector froze and still tracks.
PROBE = """
import gc, json, os, sys
from gateway.cli import main, processes, run

def counting(serve, name):
    async def wrapped(*args):
        try:
            return await serve(*args)
        finally:
            gc.collect()
            counts = {"frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects())}
            with open(os.path.join(sys.argv[1], name + ".json"), "w") as out:
                json.dump(counts, out)
    return wrapped

processes._worker = counting(processes._worker, "worker")
processes._listeners = counting(processes._listeners, "listeners")
run._serve = counting(run._serve, "one")
raise SystemExit(main(["serve", *sys.argv[2:]]))
"""


def _collector_counts(tmp_path: Path, args: tuple[str, ...]) -> dict[str, dict[str, int]]:
    http_port = free_port()
    env = gateway_env(tmp_path / "var", http_port, free_port())
    proc = subprocess.Popen(
        [sys.executable, "-c", PROBE, str(tmp_path), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )

    def serving() -> bool:
        assert proc.poll() is None, proc.communicate()[0]
        try:
            return httpx.get(f"http://127.0.0.1:{http_port}/healthz", timeout=1).is_success
        except httpx.TransportError:
            return False

    # A bound on the wait, not on speed: a loaded machine took over 30 s to start it.
    wait_until(serving, 90, "hfa serve did not come up")
    proc.send_signal(signal.SIGTERM)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, output
    return {path.stem: json.loads(path.read_text()) for path in tmp_path.glob("*.json")}


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
    counts = _collector_counts(tmp_path, args)
    assert sorted(counts) == sorted(processes)
    for name, count in counts.items():
        # Tens of thousands of objects were built to start; a few thousand at most are
        # left for the collector once it has, however the gateway is run.
        assert count["frozen"] > 50_000, (name, count)
        assert count["tracked"] < count["frozen"] / 10, (name, count)
