"""Table entries as a lawyer would type them, for tests built from the tables."""

from __future__ import annotations

from gateway.replies.lexicon import GAP


def filled(entry: str) -> str:
    """A table entry as typed: its "*" stands for some words ("halten Sie * zurück")."""
    return entry.replace(GAP, "the draft")
