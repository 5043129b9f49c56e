"""Table entries as a lawyer would type them, for tests built from the tables."""

from __future__ import annotations

from gateway.replies import Decision, read_decision
from gateway.replies.lexicon import GAP


def filled(entry: str) -> str:
    """A table entry as typed: its "*" stands for some words ("halten Sie * zurück")."""
    return entry.replace(GAP, "the draft")


def under_approve(notes: str) -> Decision:
    """The reading of ``notes`` typed under the prompt of a tapped one-click APPROVE."""
    return read_decision(f"APPROVE\n\nNotes (optional):\n{notes}\n", "APPROVE [HFA-00027]")
