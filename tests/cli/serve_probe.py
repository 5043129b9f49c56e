"""``hfa serve`` run once, each serving process reporting what it held as it stopped.

Each process writes, as its serving coroutine ends, the modules it imported and what
its garbage collector froze and still tracks; nothing else is changed. The modules
say what serving needs (``test_serve_modules``), the counts what the collector walks
(``test_serve_collector``).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from tests.cli.test_run import free_port, gateway_env, wait_until

PROBE = """
import gc, json, os, sys
from gateway.cli import main, processes, run

def reporting(serve, name):
    async def wrapped(*args):
        try:
            return await serve(*args)
        finally:
            gc.collect()
            held = {
                "modules": sorted(sys.modules),
                "frozen": gc.get_freeze_count(),
                "tracked": len(gc.get_objects()),
            }
            with open(os.path.join(sys.argv[1], name + ".json"), "w") as out:
                json.dump(held, out)
    return wrapped

processes._worker = reporting(processes._worker, "worker")
processes._listeners = reporting(processes._listeners, "listeners")
run._serve = reporting(run._serve, "one")
raise SystemExit(main(["serve", *sys.argv[2:]]))
"""


def held_by_each_process(tmp_path: Path, *args: str) -> dict[str, dict[str, Any]]:
    """Start ``hfa serve *args`` with data in ``tmp_path/var``, wait until it answers,
    stop it; what each serving process held, by name (listeners, worker, or one)."""
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
