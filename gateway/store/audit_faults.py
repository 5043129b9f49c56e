"""A fault found while verifying the audit log: where it is and what is wrong."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """A fault, located by entry and leaf (and line, in the mirror)."""

    source: str  # database | checkpoint | mirror | saved checkpoint
    where: str
    kind: str  # altered | removed | inserted | reordered | rewritten | unsigned
    detail: str
    line: int | None = None

    def describe(self) -> str:
        where = self.where
        if self.line is not None:
            where += f" (line {self.line} of the mirror)"
        return f"{self.source}: {where} {self.kind}: {self.detail}"
