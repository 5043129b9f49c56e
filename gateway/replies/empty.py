"""Whether the new text of a reply answers anything at all.

A reply holding only a greeting, thanks or a signature moves no status, stops
no reminder and tells nobody to stand down: the lawyer has not answered yet.
The words come from every language's table (``courtesies`` and ``greetings``):
"Thanks!", "Vielen Dank", "Merci beaucoup", "ありがとうございます", "谢谢".
A line may add a name to them ("Thanks, Jane", "Gruß Anna"), and a short line
of names may follow them ("Thanks,\\nJane Smith"); anything else is an answer.
"""

from __future__ import annotations

import re

from gateway.replies.lexicon import LEXICON

_COURTESIES = sorted(
    {
        entry.lower()
        for language in LEXICON.languages.values()
        for key in ("courtesies", "greetings")
        for entry in language.entries[key]
    },
    key=len,
    reverse=True,
)
# Marks around the words: punctuation, emoji and other symbols.
_MARKS = r"[\s.!,;:~…。！，、：;()\-–—*_\"'“”‘’«»\U0001F300-\U0001FAFF\u2600-\u27BF]*"
_SAID_NOTHING = re.compile(
    rf"^{_MARKS}(?:(?:{'|'.join(re.escape(c) for c in _COURTESIES)}){_MARKS})+(?P<rest>.*)$",
    re.IGNORECASE,
)
# A name or initials, as after a sign-off: "Jane Smith", "J.", "Dr. A. Keller" (capitals:
# "Thanks, approved" is an answer).
_NAME_LINE = re.compile(r"^(?:[A-ZÀ-ÞĀ-Ž\u0400-\u042f][^\W\d_]*\.?[\s,.!]*){1,3}$")
_MAX_LINES = 8
# "Thanks. No." is an answer: no decision word passes for a name. Only words that decide
# alone: "Anna" is a name, though Finnish "anna mennä" (go ahead) opens with it.
_DECISION_WORDS = frozenset(
    phrase[0]
    for phrases in (LEXICON.bare, LEXICON.leading)
    for phrase, _kind, _language in phrases
    if len(phrase) == 1
)


def _says_nothing(line: str) -> bool:
    match = _SAID_NOTHING.match(line)
    if match is None:
        return False
    rest = match.group("rest").strip()
    return not rest or _is_name(rest)


def _is_name(text: str) -> bool:
    if not _NAME_LINE.match(text):
        return False
    return not any(word in _DECISION_WORDS for word in re.findall(r"[^\W\d_]+", text.casefold()))


# A line that opens a signature (RFC 3676's "-- ", stripped; and the bare form clients send).
_SIGNATURE_MARKS = frozenset({"--", "---", "__"})


def is_no_answer(new_text: str) -> bool:
    """True when ``new_text`` holds no answer: empty, or only greetings, thanks, sign-offs."""
    lines = [line.strip() for line in new_text.splitlines() if line.strip()]
    if lines and lines[0] in _SIGNATURE_MARKS:
        # The reply opens with the signature delimiter ("-- "): all of it is the signature.
        return True
    if len(lines) > _MAX_LINES:
        return False
    courtesy = [_says_nothing(line) for line in lines]
    for line, said_nothing in zip(lines, courtesy, strict=True):
        if not said_nothing and not (any(courtesy) and _is_name(line)):
            return False
    return True
