"""Limits on how much of a message is read: parts, containers, header fields, text.

Applied to the raw bytes before any parser runs, so that the work per message
is bounded whatever it holds. What is cut stays in the stored raw message;
the reasons are returned so the recorded turn says what was not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

MAX_PARTS = 1000
# Multipart and message/* containers: bounds the parsers' nesting depth.
MAX_DEPTH = 50
MAX_HEADER_FIELDS = 1000
MAX_TEXT_CHARS = 1_000_000

# A regex anchored with ^ in MULTILINE mode is tried at every position of the data: a
# tenth of a second per 25 MB attachment each. Lines are found here from their newline,
# which the regex engine (or bytes.find) looks for at C speed.
_DELIMITER = b"--"
_CONTAINER_FIRST = re.compile(
    rb"content-type:[ \t]*(?:\r?\n[ \t]+)?(?:multipart|message)/", re.IGNORECASE
)
# The same after a newline, case-insensitive by character classes: with re.IGNORECASE
# the engine cannot look for the newline quickly.
_CONTAINER_LATER = re.compile(
    rb"\n[Cc][Oo][Nn][Tt][Ee][Nn][Tt]-[Tt][Yy][Pp][Ee]:[ \t]*(?:\r?\n[ \t]+)?"
    rb"(?:[Mm][Uu][Ll][Tt][Ii][Pp][Aa][Rr][Tt]|[Mm][Ee][Ss][Ss][Aa][Gg][Ee])/"
)
_FIELD = re.compile(rb"^[^ \t\r\n]", re.MULTILINE)
_BLANK = re.compile(rb"\r?\n\r?\n")


def _delimiter_lines(data: bytes) -> Iterator[int]:
    """Where each line that starts with "--" starts."""
    if data.startswith(_DELIMITER):
        yield 0
    at = data.find(b"\n" + _DELIMITER)
    while at != -1:
        yield at + 1
        at = data.find(b"\n" + _DELIMITER, at + 1)


def _container_lines(data: bytes) -> Iterator[int]:
    """Where each multipart or message/* Content-Type header line starts."""
    if _CONTAINER_FIRST.match(data):
        yield 0
    for match in _CONTAINER_LATER.finditer(data):
        yield match.start() + 1


def _field_lines(data: bytes) -> Iterator[int]:
    for match in _FIELD.finditer(data):
        yield match.start()


def _nth(starts: Iterator[int], n: int) -> int | None:
    for count, start in enumerate(starts, start=1):
        if count == n:
            return start
    return None


def _limit_header_fields(raw: bytes) -> tuple[bytes, bool]:
    blank = _BLANK.search(raw)
    end = blank.start() if blank else len(raw)
    cut = _nth(_field_lines(raw[:end]), MAX_HEADER_FIELDS + 1)
    if cut is None:
        return raw, False
    return raw[:cut].rstrip(b"\r\n") + raw[end:], True


def bounded(raw: bytes) -> tuple[bytes, list[str]]:
    """The part of ``raw`` the parsers read, and why anything was left out."""
    reasons: list[str] = []
    raw, cut_headers = _limit_header_fields(raw)
    if cut_headers:
        reasons.append(f"header fields after the first {MAX_HEADER_FIELDS} not read")
    cuts = []
    parts_at = _nth(_delimiter_lines(raw), MAX_PARTS + 1)
    if parts_at is not None:
        cuts.append(parts_at)
        reasons.append(f"MIME parts after the first {MAX_PARTS} not read")
    depth_at = _nth(_container_lines(raw), MAX_DEPTH + 1)
    if depth_at is not None:
        cuts.append(depth_at)
        reasons.append(f"nesting past {MAX_DEPTH} multipart or message containers not read")
    if cuts:
        raw = raw[: min(cuts)]
    return raw, reasons


def cut_text(text: str | None, what: str, reasons: list[str]) -> str | None:
    """``text`` up to MAX_TEXT_CHARS; the top is kept, since that is where a reply is."""
    if text is None or len(text) <= MAX_TEXT_CHARS:
        return text
    reasons.append(f"{what} after the first {MAX_TEXT_CHARS} characters not read")
    return text[:MAX_TEXT_CHARS]
