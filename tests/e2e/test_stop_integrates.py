"""A stopped gateway leaves no audit entry outside the signed log.

``hfa serve`` runs its listeners and its worker in two processes; each writes a
``gateway.stopped`` entry as it stops. Stopped as a supervisor stops it (SIGTERM to
the process group, or to the parent alone), or after its worker stopped first, every
entry, both of those included, is integrated and covered by a checkpoint before the
command exits: nothing is left that could be changed unseen while the gateway is down.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from bench.roles import HFA, ROOT, free_port
from tests.conftest import make_config


def serve(tmp_path: Path, name: str) -> tuple[subprocess.Popen[bytes], Path, int]:
    data_dir = tmp_path / name
    config = make_config(data_dir)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env |= {f"HFA_{k.upper()}": v for k, v in config.raw.items() if v}
    env |= {"HFA_HTTP_BIND": f"127.0.0.1:{port}", "PYTHONPATH": str(ROOT)}
    log = (tmp_path / f"{name}.log").open("wb")
    process = subprocess.Popen(
        [*HFA, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    log.close()
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline and process.poll() is None, "not started"
        time.sleep(0.1)
    filed = httpx.post(
        f"http://127.0.0.1:{port}/v1/requests",
        json={"category": "legal_review", "request": "Clause 7?"},
        timeout=10,
    )
    assert filed.status_code == 201, filed.text
    return process, data_dir / "gateway.db", port


def entries(database: Path) -> list[tuple[str, int | None]]:
    engine = create_engine(f"sqlite:///{database}")
    try:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT event, leaf_index FROM audit ORDER BY seq"))
            return [(str(event), leaf) for event, leaf in rows]
    finally:
        engine.dispose()


def worker_of(process: subprocess.Popen[bytes]) -> int:
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


@pytest.mark.parametrize("whom", ["process group", "parent", "worker"])
def test_a_stopped_gateway_leaves_every_entry_in_the_signed_log(tmp_path: Path, whom: str) -> None:
    process, database, _port = serve(tmp_path, "var")
    try:
        if whom == "process group":
            os.killpg(process.pid, signal.SIGTERM)
        elif whom == "parent":
            process.send_signal(signal.SIGTERM)
        else:
            # The worker first: its last batch is over before the listeners write theirs.
            os.kill(worker_of(process), signal.SIGTERM)
        assert process.wait(timeout=60) == (1 if whom == "worker" else 0)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    written = entries(database)
    stopped = [leaf for event, leaf in written if event == "gateway.stopped"]
    assert len(stopped) == 2, written
    assert [event for event, leaf in written if leaf is None] == [], written
