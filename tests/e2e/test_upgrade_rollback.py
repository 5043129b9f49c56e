"""Upgrading from the previous release and rolling back, with the README's steps.

The previous release is the repository's tag, found by its commit (``PREVIOUS``), which
every clone of main holds whether or not tags came with it: pip builds it from git into
a wheelhouse beside this checkout's wheel, and installs it into a venv of its own. That
release serves, a request is filed and answered; then the README's "Upgrading and rolling
back" is followed to the letter: backup and anchor, stop, install this release from the
wheelhouse, ``hfa db upgrade``, ``hfa db status``, start, ``/readyz``, ``hfa health``,
``hfa audit verify --checkpoint``; the request and its answer are still there, and this
release takes a new setting. Then back: stop, install the previous release, restore the
backup into a fresh data directory and start it there, with the newer configuration.

The venv sees the host's site-packages, so the dependencies come from there and nothing
is downloaded when they satisfy the previous release; a dependency missing there is
fetched from the package index, and with no index reachable the test is skipped, saying so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.roles import ROOT, free_port, http_up, wait_until
from gateway import __version__
from tests.e2e.servekit import file_request, send_reply, serve_env, stop, wait_for_reply_on_record
from tests.mailkit import reply_to

# The previous release, 0.1.0 (tag v0.1.0): its commit, which every full clone holds.
PREVIOUS_VERSION = "0.1.0"
PREVIOUS = "e0395680538ffbb9b96cbb4964aafb276cc205b4"
PIP_SECONDS = 300
ANSWER = "Approved, subject to the cap of 40k staying in clause 7."
# A setting the previous release does not know: the rollback must start with it set.
NEWER_SETTING = {"HFA_RETENTION": "raw=3650d"}

pytestmark = pytest.mark.slow


def _run(argv: list[str | Path], env: dict[str, str], timeout: float = 120) -> tuple[int, str]:
    done = subprocess.run(
        [str(a) for a in argv],
        env=env,
        # Not the checkout: ``python -m`` would import the package from there.
        cwd=Path(env.get("HFA_DATA_DIR", ROOT)).parent,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def _plain_env() -> dict[str, str]:
    """Nothing of this checkout on the path and no settings: what the venv installed answers."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("HFA_")}
    return env | {"PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def _previous_release() -> str:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: pip cannot build the previous release from git")
    tag = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{PREVIOUS}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if tag.returncode != 0:
        pytest.skip(
            f"this clone lacks {PREVIOUS_VERSION}'s commit {PREVIOUS[:12]} (a shallow clone: "
            "git fetch --unshallow): no previous release"
        )
    return f"git+file://{ROOT}@{PREVIOUS}#egg=hfa-gateway"


def _wheelhouse(tmp: Path) -> Path:
    """The previous release built by pip from git, and this checkout's wheel, side by side."""
    house = tmp / "wheelhouse"
    env = _plain_env()
    code, out = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            house,
            _previous_release(),
        ],
        env,
        PIP_SECONDS,
    )
    assert code == 0, out[-3000:]
    built: list[str | Path] = [
        sys.executable,
        "-m",
        "build",
        "--wheel",
        "--no-isolation",
        "-o",
        house,
        ROOT,
    ]
    code, out = _run(built, env, PIP_SECONDS)
    assert code == 0, out[-3000:]
    return house


def _install(venv: Path, house: Path, version: str) -> None:
    """The README's step 3: from the wheelhouse, with no index; the dependencies from the
    host's site-packages, or else (the previous release wanting others) from the index.

    The host's site-packages hold this checkout too (installed for the tests), which pip
    would take for the release asked for: the package itself goes into the venv first,
    then the README's command checks what it depends on."""
    argv: list[str | Path] = [venv / "bin" / "pip", "install", "--upgrade", "--find-links", house]
    wanted = f"hfa-gateway=={version}"
    code, out = _run([*argv, "--no-index", "--no-deps", "--force-reinstall", wanted], _plain_env())
    assert code == 0, out[-3000:]
    code, out = _run([*argv, "--no-index", wanted], _plain_env(), PIP_SECONDS)
    if code != 0:
        code, out = _run([*argv, wanted], _plain_env(), PIP_SECONDS)
        if code != 0 and any(
            sign in out for sign in ("NewConnectionError", "Temporary failure", "No matching")
        ):
            pytest.skip(f"the dependencies of {wanted} are not installed and no index answers")
    assert code == 0, out[-3000:]
    version_out = _run([venv / "bin" / "hfa", "--version"], _plain_env())[1]
    assert version_out.strip().endswith(f"hfa-gateway {version}"), version_out
    where = _run(
        [venv / "bin" / "python", "-c", "import gateway; print(gateway.__file__)"], _plain_env()
    )
    assert where[1].startswith(str(venv)), where


@contextmanager
def _serving(venv: Path, env: dict[str, str]) -> Iterator[str]:
    log = Path(env["HFA_DATA_DIR"]).parent / f"serve-{time.monotonic_ns()}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(venv / "bin" / "hfa"), "serve"], env=env, stdout=out, stderr=subprocess.STDOUT
        )
    base = "http://" + env["HFA_HTTP_BIND"]
    try:
        wait_until("the gateway", lambda: http_up(base) or proc.poll() is not None, deadline())
        assert proc.poll() is None, log.read_text(errors="replace")[-3000:]
        yield base
    finally:
        stop(proc)


def deadline() -> float:
    return time.monotonic() + 60


def _settings(tmp: Path, data_dir: Path) -> dict[str, str]:
    env = serve_env(tmp, free_port(), free_port())
    env.pop("PYTHONPATH")
    # The suite's own setting for unsigned test replies: the previous release knows no
    # such setting, and it would warn of it (it names one unknown setting at a time).
    env.pop("HFA_WEAK_SENDER_DECISIONS", None)
    return env | {"HFA_DATA_DIR": str(data_dir), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def _thread(base: str, filed: dict[str, Any]) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {filed['access_token']}"}
    response = httpx.get(f"{base}/v1/requests/{filed['reference']}", headers=headers)
    assert response.status_code == 200, response.text
    thread: dict[str, Any] = response.json()
    return thread


def _answered_on(thread: dict[str, Any]) -> bool:
    return any(t["author"] == "human" and "cap of 40k" in t["body"] for t in thread["turns"])


def test_upgrade_from_the_previous_release_and_roll_back_as_the_readme_says(
    tmp_path: Path,
) -> None:
    house = _wheelhouse(tmp_path)
    venv = tmp_path / "venv"
    code, out = _run([sys.executable, "-m", "venv", "--system-site-packages", venv], _plain_env())
    assert code == 0, out
    previous = PREVIOUS_VERSION
    _install(venv, house, previous)
    hfa = venv / "bin" / "hfa"
    env = _settings(tmp_path, tmp_path / "var")
    backup, anchor = tmp_path / "pre-upgrade", tmp_path / "anchor.txt"

    # The previous release at work: a request filed and answered.
    with _serving(venv, env) as base:
        filed, email = file_request(base, Path(env["HFA_DATA_DIR"]))
        send_reply(int(env["HFA_SMTP_BIND"].rsplit(":", 1)[1]), reply_to(email, ANSWER))
        wait_for_reply_on_record(base, filed)
        # Step 1, while it runs.
        code, out = _run([hfa, "backup", backup], env)
        assert code == 0, out
        code, out = _run([hfa, "audit", "anchor", "--out", anchor], env)
        assert code == 0, out
    # Step 2 was the stop above; step 3, 4 and 5.
    _install(venv, house, __version__)
    code, out = _run([hfa, "db", "upgrade"], env)
    assert code == 0, out
    code, out = _run([hfa, "db", "status"], env)
    assert code == 0, out
    newer = env | NEWER_SETTING
    with _serving(venv, newer) as base:
        assert httpx.get(base + "/readyz").status_code == 200
        code, out = _run([hfa, "health"], newer)
        assert code == 0, out
        code, out = _run([hfa, "audit", "verify", "--checkpoint", anchor], newer)
        assert code == 0 and "OK" in out, out
        # The data: the thread and its answer, read with the token the agent kept.
        assert _answered_on(_thread(base, filed))
        code, out = _run([hfa, "requests", "show", filed["reference"]], newer)
        assert code == 0 and "cap of 40k" in out, out

    # Rolling back: the previous release, the backup of step 1 in a fresh data directory,
    # the newer configuration (its new setting is ignored with a warning).
    _install(venv, house, previous)
    restored = _settings(tmp_path, tmp_path / "restored") | NEWER_SETTING
    code, out = _run([hfa, "restore", backup], restored)
    assert code == 0, out
    with _serving(venv, restored) as base:
        assert httpx.get(base + "/readyz").status_code == 200
        assert _answered_on(_thread(base, filed))
        code, out = _run([hfa, "audit", "verify", "--checkpoint", anchor], restored)
        assert code == 0 and "OK" in out, out
        assert "HFA_RETENTION is not a setting" in out
