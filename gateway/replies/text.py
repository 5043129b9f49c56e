"""Separate the new text of a reply from quoted history and signatures."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gateway.errors import ReplyError, only_reply_errors
from gateway.replies.html_text import render_html
from gateway.replies.split import is_quote_line, quote_flags, split_lines

__all__ = ["ReplyText", "extract_reply"]

# Bigger inputs are not a reply a person typed; refuse rather than spend time.
MAX_INPUT_CHARS = 5_000_000

# Control characters (NUL included) carry no text; lone surrogates (from
# ``errors="surrogateescape"`` decoding) cannot be stored as UTF-8 later.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_LINE_BREAK = re.compile(r"\r\n?|[\u2028\u2029\x85]")
_BLANK_RUN = re.compile(r"\n{3,}")
# Invisible characters that trackers and some clients put at the start of a
# line ("\u200c" above "-- "): a line of nothing else is blank, and they are
# dropped before a line's first visible character.
_INVISIBLE = "\u00ad\u034f\u180e\u200b-\u200f\u2060-\u2064\ufeff"
_INVISIBLE_LEAD = re.compile(rf"^[{_INVISIBLE}]+|^[ \t{_INVISIBLE}]+$", re.MULTILINE)


@dataclass(frozen=True)
class ReplyText:
    """What the lawyer wrote now, and everything that was set aside.

    ``confident`` is False when the new text could not be told apart from the
    rest; ``new_text`` is then the whole reply, never empty when the input is not.
    """

    new_text: str
    elided: str
    confident: bool


def extract_reply(text_plain: str | None, text_html: str | None) -> ReplyText:
    """Split a reply into what the lawyer wrote now and everything else.

    The plain part wins when it has text: clients generate it from what was
    typed, and it is what the lawyer's own client shows as the reply. The HTML
    part is read only when there is no plain text, and its client markers are
    trusted before any text heuristic.
    """
    with only_reply_errors("cannot read reply"):
        return _extract(text_plain, text_html)


def _extract(text_plain: str | None, text_html: str | None) -> ReplyText:
    for part in (text_plain, text_html):
        if part is not None and not isinstance(part, str):
            raise ReplyError("reply parts must be str or None")
        if part is not None and len(part) > MAX_INPUT_CHARS:
            raise ReplyError(f"reply larger than {MAX_INPUT_CHARS} characters")
    plain = _clean(text_plain or "")
    if plain.strip():
        lines = plain.split("\n")
        quoted = quote_flags(lines)
        cut = len(lines)
        set_aside = [False] * len(lines)
        truncated = False
    elif text_html and text_html.strip():
        rendered = render_html(_clean(text_html))
        lines = [_clean(line) for line in rendered.lines]
        quoted = [q or is_quote_line(line) for q, line in zip(rendered.quoted, lines, strict=True)]
        cut = rendered.cut
        set_aside = rendered.signature
        truncated = rendered.truncated
    else:
        return ReplyText("", "", False)

    whole = _tidy(lines)
    if not whole:
        return ReplyText("", "", False)
    split = split_lines(lines, quoted, cut, set_aside)
    new_text = _tidy([line for line, new in zip(lines, split.new, strict=True) if new])
    if not new_text or truncated:
        # Nothing is left once history is set aside (a forward, an empty
        # answer above a quote), or the HTML was too costly to read whole:
        # hand over everything rather than a guess.
        return ReplyText(whole, "", False)
    elided = _tidy([line for line, new in zip(lines, split.new, strict=True) if not new])
    return ReplyText(new_text, elided, True)


def _clean(text: str) -> str:
    text = _LINE_BREAK.sub("\n", text)
    text = _CONTROL.sub("", text)
    text = _INVISIBLE_LEAD.sub("", text)
    return _SURROGATE.sub("\ufffd", text)


def _tidy(lines: list[str]) -> str:
    """Join lines, dropping trailing spaces and runs of blank lines."""
    text = "\n".join(line.rstrip() for line in lines)
    return _BLANK_RUN.sub("\n\n", text).strip()
