"""The README's quick tour and operating section, run as written: every shell block.

Each block runs in bash in an empty directory, against this checkout: ``hfa`` is
this checkout's CLI, ``pip install`` is already done (the test runs inside the
installed environment), and ``pytest`` only starts, with the test extra's plugins
(the suite cannot run itself). The one change to the text: port 8080 (and 2525)
becomes a free port, so the tour does not collide with whatever else listens.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
TOURED = ("Quick start", "The agent API", "Operating it")

pytestmark = pytest.mark.slow


def section(name: str) -> str:
    text = README.read_text()
    start = text.index(f"\n## {name}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def shell_blocks(name: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", section(name), re.DOTALL)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def shims(bin_dir: Path) -> None:
    bin_dir.mkdir()
    python = sys.executable
    scripts = {
        "hfa": f'exec {python} -m gateway "$@"\n',
        "pip": 'echo "pip $*: already installed in this environment"\n',
        # The suite cannot run itself: the test extra is there and pytest starts with its plugins.
        "pytest": f"exec {python} -c \"import hypothesis, pytest_asyncio, pytest; raise SystemExit(pytest.main(['--version']))\"\n",
        "python3": f'exec {python} "$@"\n',
    }
    for name, body in scripts.items():
        path = bin_dir / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)


def test_every_shell_block_of_the_tour_runs_as_written(tmp_path: Path) -> None:
    blocks = {name: shell_blocks(name) for name in TOURED}
    assert all(blocks.values()), blocks
    http_port, smtp_port = free_port(), free_port()
    shims(tmp_path / "bin")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env |= {
        "PATH": f"{tmp_path / 'bin'}:{env.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
        "HFA_HTTP_BIND": f"127.0.0.1:{http_port}",
        "HFA_SMTP_BIND": f"127.0.0.1:{smtp_port}",
    }
    work = tmp_path / "tour"
    work.mkdir()

    def ported(block: str) -> str:
        return block.replace(":8080", f":{http_port}").replace(":2525", f":{smtp_port}")

    start, test = blocks["Quick start"]
    assert "hfa serve" in start and "pytest" in test
    server = subprocess.Popen(
        ["bash", "-e", "-c", ported(start)],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, server.communicate()[0]
            try:
                if httpx.get(f"http://127.0.0.1:{http_port}/healthz", timeout=2).is_success:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "hfa serve did not come up"
            time.sleep(0.2)
        said: dict[str, str] = {}
        for name in ("The agent API", "Operating it"):
            for block in blocks[name]:
                done = subprocess.run(
                    ["bash", "-e", "-c", ported(block)],
                    cwd=work,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=120,
                    check=False,
                )
                assert done.returncode == 0, (block, done.stdout, done.stderr)
                assert "Traceback" not in done.stderr, done.stderr
                said[name] = said.get(name, "") + done.stdout
        # The second curl read the thread with the token of the first; so did the long-poll,
        # and the event stream sent the opening turn and the status.
        assert "unauthorized" not in said["The agent API"]
        assert (
            said["The agent API"].count('"reference":"HFA-00001"')
            + said["The agent API"].count('"reference": "HFA-00001"')
            == 4
        )
        assert "event: turn\n" in said["The agent API"]
        assert "HFA-00001" in said["Operating it"]
        assert (work / "requests.jsonl").read_text().count("\n") == 1
    finally:
        server.terminate()
        server.communicate(timeout=30)
    collected = subprocess.run(
        ["bash", "-e", "-c", test], cwd=work, env=env, capture_output=True, timeout=600, check=False
    )
    assert collected.returncode == 0, collected.stderr
