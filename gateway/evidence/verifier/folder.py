"""A bundle unzipped into a folder: its files read as the zip's members are, within the same bounds.

Every regular file under the folder is a member, named by its path relative to it with
``/`` between parts, so an edited, added or removed file fails the manifest's check just
as it would in the zip. Python's own ``__pycache__`` folders are not evidence and are
passed over. A symbolic link is not followed: it could make the folder's files say what
another place holds. As for a zip, the members are counted and their sizes added up
before any is read (``MAX_MEMBERS``, ``max_bytes``), each is streamed in chunks, and
none yields more than it measured when it was counted.

The folder's files are only read, never run: ``verify.py`` runs the verifier beside
it, and refuses to check the folder it runs from (``cli``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from .archive import CHUNK, Refused, mib
from .checks import verify_members, verify_zip
from .layout import MAX_BYTES, MAX_MEMBERS, Verdict

SKIPPED_DIRS = ("__pycache__",)
# Opened without following a link put there after the folder was listed, where the OS can.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


class Unzipped:
    """A folder's files as a bundle's members, checked against the bounds before any is read."""

    def __init__(self, path: str, max_bytes: int = MAX_BYTES) -> None:
        self.path = path
        self._sizes: dict[str, int] = {}
        root = Path(path)
        if not root.is_dir():
            raise Refused("not a folder")
        total = 0
        for folder, dirs, names in os.walk(root, followlinks=False):
            here = Path(folder)
            links = [d for d in dirs if (here / d).is_symlink()]
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and d not in links)
            for name in sorted(names) + links:
                member = here / name
                relative = member.relative_to(root).as_posix()
                info = member.lstat()
                if not stat.S_ISREG(info.st_mode):
                    raise Refused(f"{relative}: a link or special file, not a bundle's file")
                if len(self._sizes) >= MAX_MEMBERS:
                    raise Refused(f"more than {MAX_MEMBERS} files: more than a bundle holds")
                self._sizes[relative] = info.st_size
                total += info.st_size
                if total > max_bytes:
                    raise Refused(
                        f"its files add up to more than the {mib(max_bytes)} this verifier "
                        "reads (--max-bytes raises it)"
                    )

    def names(self) -> list[str]:
        return list(self._sizes)

    def size(self, name: str) -> int:
        return self._sizes[name]

    def chunks(self, name: str) -> Iterator[bytes]:
        left = self._sizes[name]
        descriptor = os.open(Path(self.path, name), _OPEN_FLAGS)
        with os.fdopen(descriptor, "rb") as stream:
            while left > 0 and (chunk := stream.read(min(CHUNK, left))):
                left -= len(chunk)
                yield chunk


def read_folder(path: str, max_bytes: int = MAX_BYTES) -> dict[str, bytes]:
    """Every file of an unzipped bundle, in memory (within the same bounds as the checks)."""
    members = Unzipped(path, max_bytes)
    return {name: b"".join(members.chunks(name)) for name in members.names()}


def verify_folder(
    path: str, pinned: list[str] | None = None, max_bytes: int = MAX_BYTES
) -> Verdict:
    """Every check, over a bundle unzipped into ``path``."""
    try:
        return verify_members(Unzipped(path, max_bytes), pinned, max_bytes)
    except (OSError, Refused) as exc:
        verdict = Verdict()
        verdict.fail(path, f"not a readable bundle folder: {exc}")
        return verdict


def verify_path(path: str, pinned: list[str] | None = None, max_bytes: int = MAX_BYTES) -> Verdict:
    """A folder is checked as an unzipped bundle, anything else as the zip."""
    if os.path.isdir(path):
        return verify_folder(path, pinned, max_bytes)
    return verify_zip(path, pinned, max_bytes)
