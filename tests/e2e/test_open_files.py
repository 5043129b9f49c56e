"""The open-file limit against the connection caps, with ``hfa serve`` in a subprocess.

The shipped units' LimitNOFILE holds the default caps full (1,000 HTTP and 100 SMTP
connections) while a reply is still recorded; below what the caps need the gateway
refuses to start in one sentence; a condition that fails on every accept is logged once
per interval with a count, not once per attempt.
"""

from __future__ import annotations

import os
import re
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.roles import HFA, ROOT, free_port
from tests.e2e.servekit import (
    file_request,
    limited,
    send_reply,
    serve_env,
    serving,
    wait_for_reply_on_record,
)
from tests.mailkit import reply_to

UNITS = ROOT / "deploy" / "systemd"


def unit_limit(name: str) -> int:
    match = re.search(r"^LimitNOFILE=(\d+)$", (UNITS / name).read_text(), re.MULTILINE)
    assert match, f"{name} sets no LimitNOFILE"
    return int(match.group(1))


def hold(port: int, sources: list[str], each: int) -> list[socket.socket]:
    """Open ``each`` connections from every source address and keep them open."""
    held = []
    for source in sources:
        for _ in range(each):
            sock = socket.socket()
            sock.bind((source, 0))
            sock.settimeout(5)
            sock.connect(("127.0.0.1", port))
            held.append(sock)
    return held


def admitted(socks: list[socket.socket]) -> int:
    """How many are still open with nothing said (HTTP) or greeted 220 (SMTP)."""
    count = 0
    for sock in socks:
        sock.setblocking(False)
        try:
            said = sock.recv(200)
        except BlockingIOError:
            said = b""
        count += said == b"" or said.startswith(b"220")
    return count


def test_the_units_limit_holds_the_full_caps_and_a_reply_is_still_recorded(
    tmp_path: Path, database_url: str
) -> None:
    limit = unit_limit("hfa-gateway.service")
    assert limit == unit_limit("hfa@.service")
    database = {"HFA_DATABASE_URL": database_url} if database_url else {}
    with serving(tmp_path, limit, limit, **database) as (base, smtp_port, log):
        filed, email = file_request(base, tmp_path / "var")
        # 1,000 HTTP connections (the cap) from 100 addresses, 100 SMTP from 10.
        conns = hold(int(base.rpartition(":")[2]), [f"127.0.7.{n}" for n in range(1, 101)], 10)
        conns += hold(smtp_port, [f"127.0.8.{n}" for n in range(1, 11)], 10)
        try:
            time.sleep(1)
            print(
                f"held: {admitted(conns[:1000])} of 1000 HTTP, {admitted(conns[1000:])} of 100 SMTP"
            )
            send_reply(smtp_port, reply_to(email, "Approved."), source="127.0.9.1")
        finally:
            for sock in conns:
                sock.close()
        wait_for_reply_on_record(base, filed)
    text = log.read_text()
    assert "Too many open files" not in text and "out of system resource" not in text


def test_below_what_the_caps_need_it_refuses_to_start_in_one_sentence(tmp_path: Path) -> None:
    result = subprocess.run(
        [*HFA, "serve"],
        env=serve_env(tmp_path, free_port(), free_port()),
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limited(1024, 1024),
        check=False,
    )
    assert result.returncode == 78  # EX_CONFIG
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "open-file limit is 1024, below the 1356" in lines[0]
    assert "LimitNOFILE" in lines[0]


def test_a_soft_limit_below_the_caps_is_raised_to_what_they_need(tmp_path: Path) -> None:
    with serving(tmp_path, 1024, 8192) as (_base, _smtp, log):
        pass
    assert "open-file limit raised from 1024 to 1356" in log.read_text()


ACCEPT_FLOOD = """
import asyncio, os, resource, socket, sys, tempfile
from pathlib import Path
from gateway.app import Gateway
from gateway.cli.common import setup_logging
from gateway.services import build_services
from tests.conftest import make_config

async def main() -> None:
    setup_logging("text")
    services = build_services(make_config(Path(tempfile.mkdtemp())))
    gateway = Gateway(services)
    await gateway.start()
    # Now no descriptor is left for a new connection.
    used = len(os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (used + 4, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    def knock() -> None:
        held = []
        for n in range(40):
            port = gateway.smtp_port if n % 2 else gateway.http_port
            try:
                held.append(socket.create_connection(("127.0.0.1", port), 2))
            except OSError:
                pass
        import time
        time.sleep(3)
        for sock in held:
            sock.close()
    await asyncio.get_running_loop().run_in_executor(None, knock)
    await gateway.stop()
    services.close()

asyncio.run(main())
"""


def test_accept_failing_for_want_of_descriptors_is_logged_once_with_a_count() -> None:
    result = subprocess.run(
        [sys.executable, "-c", ACCEPT_FLOOD],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    failures = [line for line in result.stderr.splitlines() if "out of system resource" in line]
    # One line per listener and interval (two listeners, a few seconds), not one per try.
    assert 1 <= len(failures) <= 4, result.stderr[-3000:]


@pytest.fixture(autouse=True)
def _enough_descriptors_here() -> None:
    # The test process itself holds 1,100 client sockets.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4096 <= hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (4096, hard))
