"""audit.jsonl: the integrated entries, one JSON line each, in leaf order, tail-able.

Only the sequencer appends to it, after each batch commits, holding an exclusive
``flock`` while it writes (``append_batch``); each line carries its
``leaf_index``. A line is appended only right after the file's last one: if the
file ends earlier (a sequencer died between its commit and its lines, or led on
another host), the missing leaves are copied from the database first, so the
file never goes out of order. ``complete`` does the same on demand (``hfa audit
mirror``); nothing that verifies ever writes here.

Rotation: an empty file (renamed away and created anew, or copied and truncated)
goes on from where the writer had reached (``audit.jsonl.next``, rewritten after each
write), not from leaf 0; a mirror whose first line holds leaf k verifies as the log
from leaf k on.

Erasure (``store.erasure``) empties entries' details; ``apply_erasures`` rewrites their
lines, here and in the copies rotated away beside the file, as the database holds them.

Lines written by releases before the Merkle tree carry no ``leaf_index``: their
entry ``seq`` n is leaf n - 1.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.store.audit import ERASURE_EVENT, entry_fields, is_erased_entry, leaf_hash_hex
from gateway.store.models import AuditEntry

_TAIL_BYTES = 65536
EMPTY = -1


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


def leaf_index_of(line: Any) -> int | None:
    """A line's leaf index (old lines: seq - 1); None when the line is not an entry."""
    if not isinstance(line, dict):
        return None
    index = line.get("leaf_index")
    if isinstance(index, int):
        return index
    seq = line.get("seq")
    if index is None and isinstance(seq, int) and "prev_hash" in line:
        return seq - 1
    return None


def _next_leaf(fh: IO[bytes]) -> int | None:
    """The leaf the file's next line should hold: -1 for an empty file (new, or rotated:
    it starts with the next batch); None if its last line is unreadable."""
    line = _last_line(fh)
    if not line:
        return EMPTY
    try:
        index = leaf_index_of(json.loads(line))
    except ValueError:
        return None
    return None if index is None else index + 1


def line_for(entry: dict[str, Any]) -> bytes:
    return (json.dumps(entry, ensure_ascii=False) + "\n").encode()


def leaves_from(engine: Engine, start: int) -> Iterator[dict[str, Any]]:
    """Integrated entries from leaf ``start`` on, as lines, in leaf order."""
    with Session(engine) as session:
        rows = session.scalars(
            select(AuditEntry)
            .where(AuditEntry.leaf_index >= start)
            .order_by(AuditEntry.leaf_index)
            .execution_options(yield_per=1000)
        )
        for e in rows:
            fields = entry_fields(
                e.seq, iso(e.at), e.event, e.reference, e.actor, e.details, e.prev_hash, e.hash
            )
            yield {"leaf_index": e.leaf_index, **fields}


def _copy(
    fh: IO[bytes], engine: Engine, start: int, stop: int | None
) -> tuple[int, dict[str, Any] | None]:
    """Lines for leaves [start, stop): how many, and the last one."""
    copied, last = 0, None
    batch: list[bytes] = []
    for entry in leaves_from(engine, start):
        if stop is not None and entry["leaf_index"] >= stop:
            break
        batch.append(line_for(entry))
        copied, last = copied + 1, entry
        if len(batch) >= 1000:
            fh.write(b"".join(batch))
            batch.clear()
    if batch:
        fh.write(b"".join(batch))
    return copied, last


def append_batch(path: Path, engine: Engine, start: int, lines: list[dict[str, Any]]) -> int:
    """Append a just-committed batch (leaves from ``start``), filling any gap before it.

    Returns how many lines were copied from the database to fill a gap.
    """
    with _locked(path) as fh:
        expected = _resume_at(path, fh, engine)
        end = start + len(lines)
        if expected >= end:
            return 0
        copied = _copy(fh, engine, expected, start)[0] if expected < start else 0
        fh.write(b"".join(line_for(e) for e in lines[max(0, expected - start) :]))
        _mark(path, lines[-1])
        return copied


def _resume_at(path: Path, fh: IO[bytes], engine: Engine) -> int:
    """The leaf the file's next line must hold. An empty file was rotated away (renamed,
    or copied and truncated) or is new: it goes on from where the writer had reached
    (``audit.jsonl.next``: the next leaf and the hash of the last one written), not from
    leaf 0, so rotating frees the space; unless that last leaf is not the log's any more
    (a log restored or rewritten since), and the file starts again from leaf 0."""
    expected = _next_leaf(fh)
    if expected is None:
        # The last line is not an entry (edited by hand?): verify reports it, and
        # nothing is written after it until someone looks.
        raise ValueError(f"{path}: its last line is not an audit entry")
    if expected != EMPTY:
        return expected
    try:
        index_text, digest = _position(path).read_text().split()
        reached = int(index_text)
    except (OSError, ValueError):
        return 0
    with Session(engine) as session:
        stored = session.scalar(
            select(AuditEntry.leaf_hash).where(AuditEntry.leaf_index == reached - 1)
        )
    return reached if stored == digest else 0


def _position(path: Path) -> Path:
    return path.with_name(path.name + ".next")


def _mark(path: Path, last: dict[str, Any]) -> None:
    """Where the writer has reached (the next leaf, the last one's hash), beside the file."""
    temporary = path.with_name(path.name + ".next.new")
    temporary.write_text(f"{last['leaf_index'] + 1} {leaf_hash_hex(last)}\n")
    temporary.replace(_position(path))


def complete(path: Path, engine: Engine) -> int:
    """Bring the mirror up to the tree's last leaf (``hfa audit mirror``); lines copied.
    A rotated (empty) file goes on from where the writer had reached."""
    with _locked(path) as fh:
        copied, last = _copy(fh, engine, _resume_at(path, fh, engine), None)
        if last is not None:
            _mark(path, last)
        return copied


def _erased_lines(engine: Engine) -> dict[int, bytes]:
    """The lines of erased entries as the database holds them now, by leaf index."""
    with Session(engine) as session:
        named: set[int] = set()
        for details in session.scalars(
            select(AuditEntry.details).where(AuditEntry.event == ERASURE_EVENT)
        ):
            if isinstance(details, dict):
                named.update(s for s in details.get("entries", ()) if isinstance(s, int))
        lines: dict[int, bytes] = {}
        for e in session.scalars(select(AuditEntry).where(AuditEntry.seq.in_(named))):
            if e.leaf_index is not None and is_erased_entry(e.details):
                fields = entry_fields(
                    e.seq, iso(e.at), e.event, e.reference, e.actor, e.details, e.prev_hash, e.hash
                )
                lines[e.leaf_index] = line_for({"leaf_index": e.leaf_index, **fields})
        return lines


def _rewrite(source: IO[bytes], target: IO[bytes], erased: dict[int, bytes]) -> int:
    changed = 0
    for raw in source:
        index = None
        if raw.strip():
            try:
                index = leaf_index_of(json.loads(raw))
            except ValueError:
                index = None
        new = erased.get(index) if index is not None else None
        if new is not None and new != raw:
            raw, changed = new, changed + 1
        target.write(raw)
    return changed


def _rotated(path: Path) -> list[Path]:
    """Copies rotated away beside the file (audit.jsonl.1, audit.jsonl-20261207.gz...)."""
    skip = {_position(path).name, path.name + ".next.new"}
    return sorted(
        p
        for p in path.parent.glob(path.name + "?*")
        if p.is_file() and p.name not in skip and not p.name.endswith(".erasing")
    )


def apply_erasures(path: Path, engine: Engine) -> int:
    """Rewrite the lines of erased entries, in the file and in the copies rotated away
    beside it, as the database now holds them; returns how many lines changed.

    The live file is rewritten in place under the writers' lock (a copy is made first,
    ``audit.jsonl.erasing``, removed once done); a rotated copy is replaced whole.
    """
    erased = _erased_lines(engine)
    if not erased:
        return 0
    changed = 0
    for old in _rotated(path):
        opener: Any = gzip.open if old.suffix == ".gz" else open
        new = old.with_name(old.name + ".erasing")
        with opener(old, "rb") as source, opener(new, "wb") as target:
            count = _rewrite(source, target, erased)
        if count:
            os.chmod(new, 0o600)
            new.replace(old)
            changed += count
        else:
            new.unlink()
    if not path.exists():
        return changed
    with _locked(path) as fh:
        copy = path.with_name(path.name + ".erasing")
        with path.open("rb") as source, copy.open("w+b") as spare:
            count = _rewrite(source, spare, erased)
            if count:
                spare.flush()
                spare.seek(0)
                os.ftruncate(fh.fileno(), 0)
                shutil.copyfileobj(spare, fh)
                os.fsync(fh.fileno())
        copy.unlink()
        changed += count
    return changed
