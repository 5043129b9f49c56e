"""Walks audit.jsonl in step with the tree's leaves, stopping at the first line that differs.

A mirror that simply ends early is behind, not tampered with (the sequencer that
writes it may lead on another host, or have died between its commit and its
lines): ``behind`` counts the leaves it lacks, which ``hfa audit mirror`` copies.
A mirror that starts late was rotated: ``start`` is its first line's leaf, and the
leaves before it are not looked for.
A line missing in the middle, a line changed, moved or added is a fault.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gateway.store.audit_faults import Problem
from gateway.store.mirror import leaf_index_of


def _same(line: dict[str, Any], entry: dict[str, Any]) -> bool:
    if "leaf_index" not in line:
        # A line of an earlier release: the same entry, without its leaf index.
        return line == {k: v for k, v in entry.items() if k != "leaf_index"}
    return line == entry


def _where(index: int) -> str:
    return f"leaf {index}"


class MirrorCursor:
    def __init__(self, path: Path) -> None:
        self.fh = path.open("r", encoding="utf-8")
        self.line_no = 0
        self.problem: Problem | None = None
        self.behind = 0
        self.last_index = -1
        self.current: dict[str, Any] | None = None
        self._ended = False
        self._advance()
        # A rotated mirror starts later: the leaves before its first line are not in it.
        first = leaf_index_of(self.current) if self.current is not None else None
        self.start = first if first is not None and first > 0 else 0

    def _fault(self, where: str, kind: str, detail: str, line: int | None) -> None:
        self.problem = Problem("mirror", where, kind, detail, line)

    def _advance(self) -> None:
        raw = self.fh.readline()
        if not raw:
            self.current, self._ended = None, True
            return
        self.line_no += 1
        try:
            value = json.loads(raw)
            if leaf_index_of(value) is None:
                raise ValueError("no leaf index")
            self.current = value
        except ValueError:
            self.current = None
            self._fault("a line", "altered", "not a JSON entry with a leaf_index", self.line_no)

    def feed(self, entry: dict[str, Any]) -> None:
        if self.problem is not None:
            return
        index = entry["leaf_index"]
        if index < self.start:
            return
        line = self.current
        if line is None:
            if self._ended:
                self.behind += 1
            return
        at = leaf_index_of(line)
        assert at is not None
        if at == index:
            if not _same(line, entry):
                self._fault(_where(index), "altered", "differs from the database", self.line_no)
            self.last_index = index
            self._advance()
        elif at < index:
            kind = "reordered" if at <= self.last_index else "inserted"
            self._fault(_where(at), kind, f"found where leaf {index} was expected", self.line_no)
        elif self._peek_index() == index:
            moved = at == index + 1
            self._fault(
                _where(index if moved else at),
                "reordered" if moved else "inserted",
                f"line {self.line_no} holds leaf {at}, line {self.line_no + 1} holds leaf {index}",
                self.line_no,
            )
        else:
            self._fault(
                _where(index),
                "removed",
                f"not in the mirror: line {self.line_no} holds leaf {at} instead",
                self.line_no,
            )

    def _peek_index(self) -> int | None:
        position = self.fh.tell()
        raw = self.fh.readline()
        self.fh.seek(position)
        try:
            return leaf_index_of(json.loads(raw)) if raw else None
        except ValueError:
            return None

    def finish(self, *, complete: bool) -> None:
        """``complete``: every leaf was fed, so lines left over are extra."""
        if complete and self.problem is None and self.current is not None:
            at = leaf_index_of(self.current)
            self._fault(
                _where(at if at is not None else -1),
                "inserted",
                "is beyond the database's last leaf",
                self.line_no,
            )
        self.fh.close()
