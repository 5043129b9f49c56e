"""The mirror remembers where it left off, and notices when another process wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine

from gateway.store import mirror


def _entry(seq: int) -> dict[str, Any]:
    return {
        "seq": seq,
        "at": "2026-12-01T09:00:00.000000Z",
        "event": "e",
        "reference": None,
        "actor": "system",
        "details": {},
        "prev_hash": "0" * 64,
        "hash": f"{seq:064d}",
    }


def test_an_append_by_another_writer_is_seen_and_nothing_is_written_twice(
    tmp_path: Path, monkeypatch: Any
) -> None:
    path = tmp_path / "audit.jsonl"
    engine = create_engine("sqlite://")
    mirror.write(path, engine, [_entry(1)])
    mirror.write(path, engine, [_entry(2), _entry(3)])
    read_back: list[int] = []
    original = mirror._last_seq

    def counted(fh: Any) -> int | None:
        read_back.append(1)
        return original(fh)

    monkeypatch.setattr(mirror, "_last_seq", counted)
    mirror.write(path, engine, [_entry(4)])
    assert read_back == []  # the file was as this process left it: its tail is not read
    with path.open("ab") as other:  # another process appends 5 and 6
        other.write(b"".join(mirror._line(_entry(n)) for n in (5, 6)))
    mirror.write(path, engine, [_entry(5), _entry(6)])  # already there: not written again
    mirror.write(path, engine, [_entry(7)])
    assert read_back  # the change was noticed by reading the tail
    seqs = [json.loads(line)["seq"] for line in path.read_text().splitlines()]
    assert seqs == [1, 2, 3, 4, 5, 6, 7]
