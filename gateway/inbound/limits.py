"""Limits on how much of a message is read: parts, containers, header fields, text.

Applied to the raw bytes before any parser runs, so that the work per message
is bounded whatever it holds. What is cut stays in the stored raw message;
the reasons are returned so the recorded turn says what was not read.
"""

from __future__ import annotations

import re

MAX_PARTS = 1000
# Multipart and message/* containers: bounds the parsers' nesting depth.
MAX_DEPTH = 50
MAX_HEADER_FIELDS = 1000
MAX_TEXT_CHARS = 1_000_000

_DELIMITER = re.compile(rb"^--", re.MULTILINE)
_CONTAINER = re.compile(
    rb"^content-type:[ \t]*(?:\r?\n[ \t]+)?(?:multipart|message)/", re.MULTILINE | re.IGNORECASE
)
_FIELD = re.compile(rb"^[^ \t\r\n]", re.MULTILINE)
_BLANK = re.compile(rb"\r?\n\r?\n")


def _nth_start(pattern: re.Pattern[bytes], data: bytes, n: int) -> int | None:
    for count, match in enumerate(pattern.finditer(data), start=1):
        if count == n:
            return match.start()
    return None


def _limit_header_fields(raw: bytes) -> tuple[bytes, bool]:
    blank = _BLANK.search(raw)
    end = blank.start() if blank else len(raw)
    cut = _nth_start(_FIELD, raw[:end], MAX_HEADER_FIELDS + 1)
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
    parts_at = _nth_start(_DELIMITER, raw, MAX_PARTS + 1)
    if parts_at is not None:
        cuts.append(parts_at)
        reasons.append(f"MIME parts after the first {MAX_PARTS} not read")
    depth_at = _nth_start(_CONTAINER, raw, MAX_DEPTH + 1)
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
