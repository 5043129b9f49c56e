"""What the repository holds besides code: nothing stray, and install steps that fit the docs."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BINARY_SUFFIXES = (".whl", ".tar.gz", ".zip", ".egg", ".so", ".pyc")


def test_no_build_artefact_is_committed() -> None:
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert tracked, "not a git checkout"
    assert [name for name in tracked if name.endswith(BINARY_SUFFIXES)] == []


def test_install_steps_create_the_backup_directory_the_readme_uses() -> None:
    """The README's backups go under one directory; INSTALL.md makes it, owned by hfa."""
    readme = (ROOT / "README.md").read_text()
    install = (ROOT / "deploy" / "INSTALL.md").read_text()
    used = {m.rstrip("/") for m in re.findall(r"(/var/backups/hfa)/[\w.$()%+-]+", readme)}
    assert used == {"/var/backups/hfa"}
    made = re.search(r"^install -d -o hfa -g hfa -m 0700 (.*/var/backups/hfa)\b", install, re.M)
    assert made, "INSTALL.md creates no backup directory owned by hfa"
