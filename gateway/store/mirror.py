"""The JSON-lines mirror of the audit chain: one file, always in seq order.

Several processes (the roles, the ops CLI) append to the same file. Each
holds an exclusive ``flock`` on it while it writes, and writes only entries
after the file's last line: its own just-committed entries when they follow
on, or else every committed entry from the database after that line. So the
file never goes out of order, and an entry whose process died between its
commit and its line is written by the next one (or by ``sync`` at start and
before ``hfa audit verify``). Commits themselves are serialised (one lock per
write transaction), so when entry n is committed every entry before it is too.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Engine, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.store.models import AuditEntry

_TAIL_BYTES = 65536


@contextmanager
def _locked(path: Path) -> Iterator[IO[bytes]]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "r+b", buffering=0) as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield fh
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _last_line(fh: IO[bytes]) -> bytes:
    """The file's last complete line; a line torn by a crash is cut off (it is in the database)."""
    size = os.fstat(fh.fileno()).st_size
    chunk = _TAIL_BYTES
    while size:
        start = max(0, size - chunk)
        fh.seek(start)
        tail = fh.read(size - start)
        whole = tail if tail.endswith(b"\n") else tail[: tail.rfind(b"\n") + 1]
        lines = whole.rstrip(b"\n")
        cut = lines.rfind(b"\n")
        if cut >= 0 or start == 0:
            if len(whole) < len(tail):
                os.ftruncate(fh.fileno(), start + len(whole))
            return lines[cut + 1 :]
        chunk *= 4
    return b""


def _last_seq(fh: IO[bytes]) -> int | None:
    """The last line's seq: 0 for an empty file, None when that line is not an entry."""
    line = _last_line(fh)
    if not line:
        return 0
    try:
        value = json.loads(line)
    except ValueError:
        return None
    seq = value.get("seq") if isinstance(value, dict) else None
    return seq if isinstance(seq, int) else None


def _line(entry: dict[str, Any]) -> bytes:
    return (json.dumps(entry, ensure_ascii=False) + "\n").encode()


def _from_database(engine: Engine, after: int) -> Iterator[dict[str, Any]]:
    with Session(engine) as session:
        rows = session.scalars(
            select(AuditEntry)
            .where(AuditEntry.seq > after)
            .order_by(AuditEntry.seq)
            .execution_options(yield_per=1000)
        )
        for e in rows:
            yield {
                "seq": e.seq,
                "at": iso(e.at),
                "event": e.event,
                "reference": e.reference,
                "actor": e.actor,
                "details": e.details,
                "prev_hash": e.prev_hash,
                "hash": e.hash,
            }


def write(path: Path, bind: Engine | Connection, committed: list[dict[str, Any]]) -> int:
    """Append ``committed`` (entries in seq order, just committed), filling any gap first.

    Returns how many lines were copied from the database to fill a gap.
    """
    engine = bind.engine if isinstance(bind, Connection) else bind
    with _locked(path) as fh:
        last = _last_seq_seen(path, fh)
        if last is None:
            # The last line is not an entry (edited by hand?): verify reports it; keep
            # appending what this process committed, and copy nothing over it.
            fh.write(b"".join(_line(e) for e in committed))
            return 0
        if committed and committed[-1]["seq"] <= last:
            return 0  # another process already wrote them
        if committed and committed[0]["seq"] == last + 1:
            fh.write(b"".join(_line(e) for e in committed))
            _remember(path, fh, committed[-1]["seq"])
            return 0
        # A gap (or no entries of our own): the database has every committed entry.
        own = {e["seq"] for e in committed}
        copied = 0
        batch: list[bytes] = []
        for entry in _from_database(engine, last):
            batch.append(_line(entry))
            copied += entry["seq"] not in own
            if len(batch) >= 1000:
                fh.write(b"".join(batch))
                batch.clear()
        if batch:
            fh.write(b"".join(batch))
        return copied


# What this process left at the end of each mirror file: (file identity, last seq).
# Every commit appends to the mirror; while the file is exactly as this process left
# it (same inode, size and modification time), its last seq is known without reading
# the file's tail back. Any other writer changes the size or the time.
_LEFT: dict[Path, tuple[tuple[int, int, int], int]] = {}


def _identity(fh: IO[bytes]) -> tuple[int, int, int]:
    stat = os.fstat(fh.fileno())
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


def _last_seq_seen(path: Path, fh: IO[bytes]) -> int | None:
    left = _LEFT.get(path)
    if left is not None and left[0] == _identity(fh):
        return left[1]
    return _last_seq(fh)


def _remember(path: Path, fh: IO[bytes], last: int) -> None:
    _LEFT[path] = (_identity(fh), last)


def sync(path: Path, engine: Engine | Connection) -> int:
    """Bring the mirror up to the database's last committed entry; returns lines copied."""
    return write(path, engine, [])
