"""A bundle unzipped into a folder: its files read as the zip's members are, then checked alike.

Every regular file under the folder is a member, named by its path relative to it with
``/`` between parts, so an edited, added or removed file fails the manifest's check just
as it would in the zip. Python's own ``__pycache__`` folders (written when ``verify.py``
imports ``hfa_verify/``) are not evidence and are passed over. A symbolic link is not
followed: it could make the folder's files say what another place holds.
"""

from __future__ import annotations

import os
from pathlib import Path

from .checks import verify_files, verify_zip
from .layout import MAX_MEMBER, Verdict

SKIPPED_DIRS = ("__pycache__",)


def read_folder(path: str) -> dict[str, bytes]:
    root = Path(path)
    files: dict[str, bytes] = {}
    for folder, dirs, names in os.walk(root, followlinks=False):
        here = Path(folder)
        links = [d for d in dirs if (here / d).is_symlink()]
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and d not in links)
        for name in sorted(names) + links:
            member = here / name
            relative = member.relative_to(root).as_posix()
            if member.is_symlink() or not member.is_file():
                raise ValueError(f"{relative}: a link or special file, not a bundle's file")
            if member.stat().st_size > MAX_MEMBER:
                raise ValueError(f"{relative}: too large a file")
            files[relative] = member.read_bytes()
    return files


def verify_folder(path: str, pinned: list[str] | None = None) -> Verdict:
    """Every check, over a bundle unzipped into ``path``."""
    try:
        files = read_folder(path)
    except (OSError, ValueError) as exc:
        verdict = Verdict()
        verdict.fail(path, f"not a readable bundle folder: {exc}")
        return verdict
    return verify_files(files, pinned)


def verify_path(path: str, pinned: list[str] | None = None) -> Verdict:
    """A folder is checked as an unzipped bundle, anything else as the zip."""
    if os.path.isdir(path):
        return verify_folder(path, pinned)
    return verify_zip(path, pinned)
