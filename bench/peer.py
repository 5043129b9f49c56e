"""Side by side with the closest open peer: awaithumans, filing a task and reading it back.

awaithumans (https://pypi.org/project/awaithumans/, server extra) is run as
its users run it, ``awaithumans serve`` on durable SQLite, in its own process
on a free loopback port, and gets the same wrk load as the gateway's submit
and status rows. Its server has dependencies of its own (FastAPI, pydantic,
aiosqlite), so it is not installed with the gateway: install it in a virtual
environment of its own and name the command, or put it on PATH::

    python -m venv /opt/awaithumans && /opt/awaithumans/bin/pip install 'awaithumans[server]==0.1.12'
    BENCH_AWAITHUMANS=/opt/awaithumans/bin/awaithumans hfa bench --peer awaithumans

Without the command (or without wrk, which gives every filing its own
idempotency key) the rows are skipped and the report says why.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from bench import procs
from bench.drive import Driver
from bench.loadgen import Load
from bench.report import Figure
from bench.tools import UNIQUE

PEERS = ("awaithumans",)
VERSION = "0.1.12"
# The same question the gateway is asked in the submit row, as an awaithumans task.
TASK = {
    "task": "May I accept the supplier's revised limitation of liability clause (7.2) as drafted?",
    "payload": {
        "context": "The agreement covers hosting of customer records for the EU subsidiary.",
        "proposed_action": "Accept clause 7.2 as drafted and sign the agreement via DocuSign.",
        "urgency": "blocking",
    },
    "payload_schema": {"type": "object"},
    "response_schema": {
        "type": "object",
        "properties": {"approved": {"type": "boolean"}, "notes": {"type": "string"}},
    },
    "timeout_seconds": 86400,
}


def command() -> str | None:
    """The ``awaithumans`` command: $BENCH_AWAITHUMANS, else on PATH."""
    named = os.environ.get("BENCH_AWAITHUMANS", "").strip()
    if named:
        return named if Path(named).is_file() else None
    return shutil.which("awaithumans")


def skip_reason(driver: Driver) -> str | None:
    """Why the peer rows cannot run here, or None when they can."""
    if command() is None:
        return (
            f"awaithumans is not installed: pip install 'awaithumans[server]=={VERSION}' "
            "into its own virtualenv and set BENCH_AWAITHUMANS to its bin/awaithumans"
        )
    if not driver.use_wrk:
        return "the peer rows need wrk (each filing carries its own idempotency key)"
    return None


def _wait_for_port(port: int, child: procs.Child) -> None:
    deadline = time.monotonic() + procs.START_TIMEOUT
    while time.monotonic() < deadline:
        if child.process.poll() is not None:
            raise RuntimeError(f"awaithumans exited early; see {child.log}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    child.stop()
    raise RuntimeError(f"awaithumans did not start; see {child.log}")


@contextmanager
def awaithumans(work: Path) -> Iterator[tuple[procs.Child, int, str]]:
    """``awaithumans serve`` on a free port with durable SQLite; (child, port, admin token)."""
    program = command()
    assert program is not None
    port, token = procs.free_port(), secrets.token_urlsafe(24)
    data = work / "awaithumans"
    data.mkdir(parents=True, exist_ok=True)
    env = {
        "AWAITHUMANS_DB_PATH": str(data / "awaithumans.db"),
        "AWAITHUMANS_ADMIN_API_TOKEN": token,
        "AWAITHUMANS_PAYLOAD_KEY": secrets.token_urlsafe(32),
        "AWAITHUMANS_LOG_LEVEL": "warning",
    }
    argv = [program, "serve", "--host", "127.0.0.1", "--port", str(port)]
    child = procs.spawn(argv, data / "awaithumans.log", env)
    try:
        _wait_for_port(port, child)
        yield child, port, token
    finally:
        child.stop()


def _figure(peer: Load, limit: float, note: str) -> Figure:
    p50, p99 = peer.percentiles()
    if peer.errors:
        note += f"; errors: {peer.errors}"
    return Figure(peer.rate, limit, p50, p99, None, note)


async def submit_and_status(
    driver: Driver, work: Path, bare_submit: float, bare_status: float
) -> tuple[Figure, Figure]:
    """The peer's create-task and get-task rates beside the bare endpoint of this run."""
    with awaithumans(work) as (_child, port, token):
        auth = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            first = client.post(
                "/api/tasks", json={**TASK, "idempotency_key": "first"}, headers=auth
            )
            first.raise_for_status()
            task_id = first.json()["id"]
        body = json.dumps({**TASK, "idempotency_key": f"bench-{UNIQUE}"})
        filing = await driver.http(port, "POST", "/api/tasks", body=body, headers=auth)
        reading = await driver.http(port, "GET", f"/api/tasks/{task_id}", headers=auth)
    note = f"awaithumans {VERSION} serve, SQLite"
    return _figure(filing, bare_submit, note), _figure(reading, bare_status, note)
