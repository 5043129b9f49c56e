"""``hfa serve``'s two processes hold only what serving needs, not what starting needed.

A work budget, not a measurement of memory: which modules a process imported does
not depend on the machine. The memory itself (the listeners' RSS plus the worker's
private pages, about 100 MB) is measured by ``hfa bench --paths memory``.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.cli.test_run import free_port, gateway_env

# Each process, as it stops, writes the modules it imported; nothing else is changed.
PROBE = """
import json, os, sys
from gateway.cli import main, processes

def dumping(run, name):
    async def wrapped(*args):
        try:
            return await run(*args)
        finally:
            with open(os.path.join(sys.argv[1], name + ".json"), "w") as out:
                json.dump(sorted(sys.modules), out)
    return wrapped

processes._worker = dumping(processes._worker, "worker")
processes._listeners = dumping(processes._listeners, "listeners")
raise SystemExit(main(["serve"]))
"""
# Loaded by looking at the schema (the migration tools), by the first reply read (the word
# tables of every language, the DKIM and DNS libraries that check its sender), or by a
# WebSocket no route speaks: none while serving idle.
NOT_WHILE_IDLE = (
    "alembic",
    "mako",
    "pygments",
    "gateway.replies.lexicon",
    "gateway.replies.decision",
    "py3langid",
    "dkim",
    "dns",
    "websockets",
)


def _modules_of_an_idle_serve(tmp_path: Path) -> dict[str, set[str]]:
    http_port = free_port()
    env = gateway_env(tmp_path / "var", http_port, free_port())
    proc = subprocess.Popen(
        [sys.executable, "-c", PROBE, str(tmp_path)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    # A bound on the wait, not on speed: a loaded machine took over 30 s to start it.
    deadline = time.monotonic() + 90
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{http_port}/healthz", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert proc.poll() is None, proc.communicate()[0]
        assert time.monotonic() < deadline, "hfa serve did not come up"
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, output
    return {
        name: set(json.loads((tmp_path / f"{name}.json").read_text()))
        for name in ("listeners", "worker")
    }


def test_an_idle_serve_holds_no_migration_tool_word_table_or_sender_check_library(
    tmp_path: Path,
) -> None:
    modules = _modules_of_an_idle_serve(tmp_path)
    for name, loaded in modules.items():
        # They did serve: the listeners their HTTP app, the worker its loop.
        assert "gateway.app" in loaded and "gateway.inbound.worker" in loaded, name
        held = sorted(m for m in loaded if m.split(".")[0] in NOT_WHILE_IDLE)
        held += sorted(m for m in loaded if m.startswith(NOT_WHILE_IDLE) and m not in held)
        assert held == [], name
    # The schema was looked at all the same (in a process of its own), and is current.
    assert (tmp_path / "var" / "gateway.db").exists()
