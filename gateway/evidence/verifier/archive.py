"""A bundle's members, read within bounds: a hostile zip is refused before it costs much.

A bundle is checked from its members one at a time: each is hashed as it streams
out of the zip, and only the small files a check parses (the manifest and its
signature, the keys, the checkpoint, the JSON files, the request email) are read
whole, within a budget. Before anything is read, the zip's end record is checked
(how many members, how large its directory) and then every member's declared size
(each, and all together); a member never yields more than it declares.
"""

from __future__ import annotations

import hashlib
import struct
import zipfile
from collections.abc import Iterator, Mapping
from typing import BinaryIO, Protocol

from .layout import EMAIL_SHARE, MAX_BYTES, MAX_CENTRAL, MAX_MEMBERS, PARSED_SHARE

CHUNK = 1024 * 1024
_EOCD = b"PK\x05\x06"
_EOCD_SIZE = 22
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_EOCD = b"PK\x06\x06"


class Refused(ValueError):
    """A bundle, or one of its members, this verifier does not read: the sentence says why."""


class Members(Protocol):
    """A bundle's files: their names and sizes, each readable as a stream of chunks."""

    def names(self) -> list[str]: ...

    def size(self, name: str) -> int: ...

    def chunks(self, name: str) -> Iterator[bytes]: ...


def mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


class InMemory:
    """Members held in memory (path -> bytes): what the exporter builds, what tests change."""

    def __init__(self, files: Mapping[str, bytes]) -> None:
        self._files = files

    def names(self) -> list[str]:
        return list(self._files)

    def size(self, name: str) -> int:
        return len(self._files[name])

    def chunks(self, name: str) -> Iterator[bytes]:
        yield self._files[name]


def _directory(handle: BinaryIO) -> tuple[int, int]:
    """(members, central directory size) from the zip's end record, ZIP64 or not."""
    handle.seek(0, 2)
    end = handle.tell()
    span = min(end, _EOCD_SIZE + 0xFFFF)
    handle.seek(end - span)
    tail = handle.read(span)
    # As zipfile looks for it: at the very end (no comment), else the last one.
    at = span - _EOCD_SIZE if tail[-_EOCD_SIZE : -_EOCD_SIZE + 4] == _EOCD else tail.rfind(_EOCD)
    if at < 0 or span - at < _EOCD_SIZE:
        raise Refused("not a zip file: it has no end of central directory record")
    count, central = struct.unpack_from("<HI", tail, at + 10)
    if count != 0xFFFF and central != 0xFFFFFFFF:
        return count, central
    locator = end - span + at - 20
    handle.seek(max(locator, 0))
    found = handle.read(20)
    if locator < 0 or found[:4] != _ZIP64_LOCATOR:
        raise Refused("a ZIP64 zip file without its ZIP64 end record locator")
    (record,) = struct.unpack_from("<Q", found, 8)
    handle.seek(record)
    head = handle.read(56)
    if len(head) < 56 or head[:4] != _ZIP64_EOCD:
        raise Refused("a ZIP64 zip file whose ZIP64 end record is missing")
    count64, central64 = struct.unpack_from("<QQ", head, 32)
    return int(count64), int(central64)


class Zipped:
    """A zip's members, checked against the bounds before any is read; use with ``with``."""

    def __init__(self, path: str, max_bytes: int = MAX_BYTES) -> None:
        self.path = path
        self._file = open(path, "rb")  # noqa: SIM115 (closed by close())
        try:
            self._zip = self._open(max_bytes)
        except BaseException:
            self._file.close()
            raise

    def _open(self, max_bytes: int) -> zipfile.ZipFile:
        count, central = _directory(self._file)
        if count > MAX_MEMBERS or central > MAX_CENTRAL:
            raise Refused(
                f"{count} members ({mib(central)} of directory): more than a bundle holds "
                f"(at most {MAX_MEMBERS} members, {mib(MAX_CENTRAL)} of directory)"
            )
        self._file.seek(0)
        archive = zipfile.ZipFile(self._file)
        self._infos: dict[str, zipfile.ZipInfo] = {}
        total = 0
        for info in archive.infolist():
            if info.is_dir():
                continue
            if info.filename in self._infos:
                raise Refused(f"{info.filename}: a member repeated in the zip")
            self._infos[info.filename] = info
            total += info.file_size
        if len(archive.infolist()) > MAX_MEMBERS:
            raise Refused(f"more than {MAX_MEMBERS} members: more than a bundle holds")
        if total > max_bytes:
            raise Refused(
                f"its members add up to {mib(total)} uncompressed, more than the "
                f"{mib(max_bytes)} this verifier reads (--max-bytes raises it)"
            )
        return archive

    def names(self) -> list[str]:
        return list(self._infos)

    def size(self, name: str) -> int:
        return self._infos[name].file_size

    def chunks(self, name: str) -> Iterator[bytes]:
        with self._zip.open(self._infos[name]) as stream:
            while chunk := stream.read(CHUNK):
                yield chunk

    def close(self) -> None:
        self._zip.close()
        self._file.close()

    def __enter__(self) -> Zipped:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class Reader:
    """Reads members for the checks: hashes streamed once, whole files within a budget.

    With ``max_bytes`` (a zip), what is parsed is read whole within a budget of
    ``max_bytes / PARSED_SHARE`` in all, and each email within ``max_bytes /
    EMAIL_SHARE``; in memory (the exporter's files, tests), nothing is bounded.
    """

    def __init__(self, members: Members, max_bytes: int | None) -> None:
        self.members = members
        self.present = set(members.names())
        self._budget = None if max_bytes is None else max_bytes // PARSED_SHARE
        self._email_cap = None if max_bytes is None else max_bytes // EMAIL_SHARE
        self._digests: dict[str, str] = {}
        # Members whose hash is not the one the signed manifest lists.
        self.changed: set[str] = set()

    def __contains__(self, name: object) -> bool:
        return name in self.present

    def sha256(self, name: str) -> str:
        if name not in self._digests:
            digest = hashlib.sha256()
            for chunk in self.members.chunks(name):
                digest.update(chunk)
            self._digests[name] = digest.hexdigest()
        return self._digests[name]

    def admit(self, name: str, cap: int | None = None) -> int:
        """The member's size (KeyError if absent), or Refused if it may not be read whole."""
        size = self.members.size(name)
        if cap is not None and size > cap:
            raise Refused(f"{mib(size)}, more than such a file ever is ({mib(cap)})")
        if self._budget is not None and size > self._budget:
            raise Refused(
                f"{mib(size)}, more than is left of what this verifier parses "
                f"({mib(self._budget)}; --max-bytes raises it)"
            )
        return size

    def whole(self, name: str, cap: int | None = None) -> bytes:
        """A member to parse, read whole (KeyError if absent), counted against the budget."""
        size = self.admit(name, cap)
        if self._budget is not None:
            self._budget -= size
        return b"".join(self.members.chunks(name))

    def get(self, name: str, cap: int | None = None) -> bytes | None:
        return self.whole(name, cap) if name in self.present else None

    def email(self, name: str) -> bytes:
        """An email, read whole to be rewritten into the mbox (b"" if absent), one at a time."""
        if name not in self.present:
            return b""
        size = self.members.size(name)
        if self._email_cap is not None and size > self._email_cap:
            raise Refused(
                f"{name} is {mib(size)}, more than this verifier rewrites into the mbox "
                f"({mib(self._email_cap)}; --max-bytes raises it)"
            )
        return b"".join(self.members.chunks(name))
