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

import re
from dataclasses import dataclass

from gateway.replies.patterns import (
    attribution_strength,
    attribution_without_colon,
    header_field,
    is_original_message_separator,
    starts_header_block,
)
from gateway.replies.signature import is_cut, postscript_start, signature_start

# Gmail and others wrap a long attribution onto a second (rarely a third) line.
_MAX_ATTRIBUTION_LINES = 3
# A client only wraps a line that was long; shorter lines are the answer's own.
_MIN_WRAPPED_LENGTH = 20
# A wrapped attribution may break after a date part or an abbreviation ("Fr., 28.").
_ABBREVIATION_END = re.compile(r"(?:\d{1,2}|[^\W\d_]{1,4})\.$")
# "> ..." and Supercite's initials ("C> ", "JD> "); the address of a wrapped
# attribution closing on its own line (">:") is not a quote.
_QUOTE_PREFIX = re.compile(r"^[ \t]*>")
_ADDRESS_CLOSE = re.compile(r"^[ \t]*>[ \t]*[:：][ \t]*$")
_WRAPPED_ADDRESS_END = re.compile(r"^[ \t]*>[ \t]*[^<>\n]{0,40}[:：][ \t]*$")
_INITIALS_PREFIX = re.compile(r"^[ \t]{0,3}([A-Z]{1,3})>(?: |$)")
# How many quoted lines above an answer are kept as its context.
_CONTEXT_LINES = 3


@dataclass(frozen=True)
class Split:
    """Which lines are new text; the rest is elided."""

    new: list[bool]


def is_quote_line(line: str) -> bool:
    return bool(_QUOTE_PREFIX.match(line)) and not _ADDRESS_CLOSE.match(line)


def quote_flags(lines: list[str]) -> list[bool]:
    """Which plain-text lines are quoted.

    Initials as a prefix count only on two lines in a row with the same
    initials: "A> B is the formula" on its own is the answer's text.
    """
    flags = [is_quote_line(line) for line in lines]
    for index in range(1, len(lines)):
        # "... Rick Sanchez <rick@example.com" / "> a écrit :": the address wrapped.
        if flags[index] and _WRAPPED_ADDRESS_END.match(lines[index]):
            above = lines[index - 1]
            if above.rfind("<") > above.rfind(">") and not flags[index - 1]:
                flags[index] = False
    initials = [_INITIALS_PREFIX.match(line) for line in lines]
    for index, match in enumerate(initials):
        if match is None or flags[index]:
            continue
        neighbours = initials[max(0, index - 1) : index] + initials[index + 1 : index + 2]
        if any(other is not None and other.group(1) == match.group(1) for other in neighbours):
            flags[index] = True
    return flags


def _context_lines(lines: list[str], quoted: list[bool], keep: list[bool], after: set[int]) -> None:
    """Keep the short quotes that an answer below them replies to.

    A reply that opens with "> Book the notary for Thursday?" and answers
    below, and inline answers, need the quoted line to be read. A quote under
    an attribution (``after`` holds where such quotes start) is the whole
    earlier email unless the reply answers several quotes in turn.
    """
    blocks: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        if not (quoted[index] and _QUOTE_PREFIX.match(lines[index])):
            index += 1
            continue
        start = index
        while index < len(lines) and quoted[index] and _QUOTE_PREFIX.match(lines[index]):
            index += 1
        following = _next_content(lines, index, len(lines))
        if following < len(lines) and keep[following]:
            blocks.append((start, index))
    inline = len(blocks) >= 2
    for start, end in blocks:
        content = [i for i in range(start, end) if lines[i].strip(" \t>")]
        if len(content) > _CONTEXT_LINES or (start in after and not inline):
            continue
        for line_index in content:
            keep[line_index] = True


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
    attributed: set[int] = set()
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
                attributed.add(following)
            elif strength == 2:
                # Unquoted history follows a clear "On ... wrote:": it is all history.
                cut = first
                break
        index += 1
    for later in range(cut, count):
        keep[later] = False
    _drop_signature(lines, keep)
    _context_lines(lines[:cut], quoted[:cut], keep, attributed)
    return Split(keep)


def _attribution_ending_at(lines: list[str], keep: list[bool], end: int) -> tuple[int, int]:
    """(first line, strength) of an attribution whose last line is ``end``.

    The widest plausible span wins, so the start of a wrapped header is not
    left behind as new text; earlier lines only join when they look like the
    front half of a wrapped header rather than a sentence of the answer.
    """
    has_colon = lines[end].rstrip().endswith((":", "："))
    best_first, best_strength = end, 0
    for span in range(_MAX_ATTRIBUTION_LINES, 0, -1):
        first = end - span + 1
        if first < 0 or not all(keep[i] and _joinable(lines[i]) for i in range(first, end)):
            continue
        joined = " ".join(lines[i].strip() for i in range(first, end + 1))
        if has_colon:
            strength = attribution_strength(joined)
        else:
            # Without its colon an attribution only counts above a quote (strength 1).
            strength = int(attribution_without_colon(joined))
        if strength > best_strength:
            best_first, best_strength = first, strength
    return best_first, best_strength


def _joinable(line: str) -> bool:
    stripped = line.strip()
    ends_sentence = stripped.endswith(("!", "?", ";", ":")) or (
        stripped.endswith(".") and not _ABBREVIATION_END.search(stripped)
    )
    return (
        len(stripped) >= _MIN_WRAPPED_LENGTH
        and not ends_sentence
        and any(char.isdigit() or char == "@" for char in stripped)
    )


def _next_content(lines: list[str], start: int, cut: int) -> int:
    for index in range(start, cut):
        if lines[index].strip():
            return index
    return cut


def _drop_signature(lines: list[str], keep: list[bool]) -> None:
    positions = [i for i, kept in enumerate(keep) if kept]
    own = [lines[i] for i in positions]
    start = signature_start(own)
    if start is None:
        return
    postscript = postscript_start(own, start)
    for number, position in enumerate(positions[start:], start):
        if postscript is not None and number >= postscript:
            # What follows a postscript is kept to the next delimiter or disclaimer.
            if is_cut(own[number]):
                postscript = None
            else:
                continue
        keep[position] = False
