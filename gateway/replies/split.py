"""Decide, line by line, which lines the lawyer wrote now.

The input is a list of lines, each flagged as quoted or not (a ``>`` line in
plain text, a ``<blockquote>`` line in HTML), plus an optional hard cut from an
HTML client marker. Three kinds of evidence set lines aside:

1. Hard cuts: everything from "-----Original Message-----", an Outlook
   "From:/Sent:/To:" block, an underscore separator, a client marker, or an
   "On ... wrote:" line followed by unquoted history is history.
2. Quoted lines, and the attribution line that introduces them. Unquoted lines
   between or after quotes stay: that is how bottom-posted and inline answers
   are written.
3. The signature tail of what remains (see ``signature``).
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.replies.patterns import (
    attribution_strength,
    header_field,
    is_original_message_separator,
    starts_header_block,
)
from gateway.replies.signature import signature_start

# Gmail and others wrap a long attribution onto a second (rarely a third) line.
_MAX_ATTRIBUTION_LINES = 3
# A client only wraps a line that was long; shorter lines are the answer's own.
_MIN_WRAPPED_LENGTH = 20


@dataclass(frozen=True)
class Split:
    """Which lines are new text; the rest is elided."""

    new: list[bool]


def is_quote_line(line: str) -> bool:
    return line.lstrip(" \t").startswith(">")


def split_lines(lines: list[str], quoted: list[bool], cut: int, set_aside: list[bool]) -> Split:
    """Mark the lines the lawyer wrote now.

    ``quoted[i]`` is True for quoted lines, ``cut`` is the index where history
    starts for certain (``len(lines)`` if unknown), and ``set_aside[i]`` marks
    lines a client already flagged as not content (an HTML signature block).
    """
    count = len(lines)
    keep = [not quoted[i] and not set_aside[i] for i in range(count)]
    cut = min(cut, count)
    fields = [header_field(line) if keep[i] else None for i, line in enumerate(lines)]
    index = 0
    while index < cut:
        if not keep[index] or not lines[index].strip():
            index += 1
            continue
        if is_original_message_separator(lines[index]) or starts_header_block(fields, index):
            cut = index
            break
        first, strength = _attribution_ending_at(lines, keep, index)
        if strength:
            following = _next_content(lines, index + 1, cut)
            if following >= cut or quoted[following]:
                # It introduces a quote (or nothing): set aside just the attribution.
                for line_index in range(first, index + 1):
                    keep[line_index] = False
            elif strength == 2:
                # Unquoted history follows a clear "On ... wrote:": it is all history.
                cut = first
                break
        index += 1
    for later in range(cut, count):
        keep[later] = False
    _drop_signature(lines, keep)
    return Split(keep)


def _attribution_ending_at(lines: list[str], keep: list[bool], end: int) -> tuple[int, int]:
    """(first line, strength) of an attribution whose last line is ``end``.

    The widest plausible span wins, so the start of a wrapped header is not
    left behind as new text; earlier lines only join when they look like the
    front half of a wrapped header rather than a sentence of the answer.
    """
    if not lines[end].rstrip().endswith((":", "：")):
        return end, 0
    best_first, best_strength = end, 0
    for span in range(_MAX_ATTRIBUTION_LINES, 0, -1):
        first = end - span + 1
        if first < 0 or not all(keep[i] and _joinable(lines[i]) for i in range(first, end)):
            continue
        joined = " ".join(lines[i].strip() for i in range(first, end + 1))
        strength = attribution_strength(joined)
        if strength > best_strength:
            best_first, best_strength = first, strength
    return best_first, best_strength


def _joinable(line: str) -> bool:
    stripped = line.strip()
    return (
        len(stripped) >= _MIN_WRAPPED_LENGTH
        and not stripped.endswith((".", "!", "?", ";", ":"))
        and any(char.isdigit() or char == "@" for char in stripped)
    )


def _next_content(lines: list[str], start: int, cut: int) -> int:
    for index in range(start, cut):
        if lines[index].strip():
            return index
    return cut


def _drop_signature(lines: list[str], keep: list[bool]) -> None:
    positions = [i for i, kept in enumerate(keep) if kept]
    start = signature_start([lines[i] for i in positions])
    if start is None:
        return
    for position in positions[start:]:
        keep[position] = False
