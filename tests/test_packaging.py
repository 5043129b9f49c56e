"""The release as the README builds and installs it: ``python -m build``, then an install
with no package index (what an offline host, or an upgrade from a wheelhouse, does)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from gateway import __version__

ROOT = Path(__file__).resolve().parents[1]


def run(*argv: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    # Nothing of this checkout on the path: the installed wheel alone answers.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env |= {"PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    return subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_the_readme_builds_a_wheel_that_installs_without_an_index(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python -m build" in readme and "--no-index --find-links wheelhouse" in readme
    # --no-isolation: the build backend (hatchling, in the test extra) is used as installed,
    # so the build needs no index either.
    built = run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", tmp_path / "dist")
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name == f"hfa_gateway-{__version__}-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "gateway/_templates/email/request.html.j2" in names or any(
        n.startswith("gateway/_templates/email/") for n in names
    )
    assert any(n.startswith("gateway/store/migrations/") for n in names)
    assert any(n.endswith("LC_MESSAGES/messages.po") for n in names)
    # The dependencies come from the host (a wheelhouse in the README); the wheel itself
    # installs with no index and runs from where it was installed.
    venv = tmp_path / "venv"
    assert run(sys.executable, "-m", "venv", "--system-site-packages", venv).returncode == 0
    installed = run(venv / "bin" / "pip", "install", "--no-index", "--no-deps", wheel)
    assert installed.returncode == 0, installed.stderr[-2000:]
    version = run(venv / "bin" / "hfa", "--version", cwd=tmp_path)
    assert version.stdout.strip() == f"hfa-gateway {__version__}", version.stderr
    where = run(
        venv / "bin" / "python", "-c", "import gateway; print(gateway.__file__)", cwd=tmp_path
    )
    assert where.stdout.strip().startswith(str(venv)), where.stdout + where.stderr
