"""Subjects a lawyer can scan in an inbox: the ask first, tags, one kind per email.

Every subject is at most 78 characters. The agent writes only the quoted
gist; the gateway writes the rest. The gist is cleaned so that it cannot pass
for the gateway's own words: hidden controls are shown escaped, reference-like
tokens ("[HFA-00001]", "Re:", "Bcc:") and decision words ("APPROVED", "yes")
are removed, so an inbox row never reads as though something was decided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gateway.render import shown

MAX_SUBJECT = 78

_REFERENCE_LIKE = re.compile(
    r"\[[^\]]{0,40}\]|\bHFA-\d+\b|\b(?:re|aw|fwd?|wg|sv|tr|bcc|cc|to|from|subject|"
    r"reply-to)\s*:",
    re.IGNORECASE,
)
# Any word starting with one of these reads as a decision in some language.
_DECISION_STEMS = (
    "approv", "approuv", "genehmig", "freigeg", "freigab", "accept", "aprob", "aprueb",
    "goedgekeur", "goedkeur", "akkoord", "einverstanden", "reject", "rejet", "deny",
    "denied", "abgelehn", "ablehn", "refus", "rechaz", "deneg", "afgewez", "afgekeur",
    "declin", "confirm", "authoriz", "authoris", "sign-off", "signoff",
)  # fmt: skip
# Words that decide only when they open a line ("No, use 6"; "Question: ..."; "I'm on it").
_LEADING_WORDS = frozenset(
    {
        "yes", "no", "ja", "jawohl", "nein", "oui", "non", "si", "sí", "nee", "ok", "okay",
        "lgtm", "agreed", "i'm", "i’m", "im", "on", "it", "question", "questions", "frage",
        "pregunta", "vraag", "close", "closed", "geschlossen", "fermé", "cerrado", "gesloten",
        "acknowledged", "ack",
    }
)  # fmt: skip
_WORD = re.compile(r"[\w'’-]+")
_SPACES = re.compile(r"\s+")


def gist(text: str) -> str:
    """The agent's ask, cleaned for a subject line (not yet shortened)."""
    first = next((line for line in str(text).splitlines() if line.strip()), "")
    flat = shown(_REFERENCE_LIKE.sub(" ", first.replace("\t", " ")))
    flat = _SPACES.sub(" ", flat)

    def keep(match: re.Match[str]) -> str:
        word = match.group().casefold().strip("'’-")
        return "" if word.startswith(_DECISION_STEMS) else match.group()

    flat = _SPACES.sub(" ", _WORD.sub(keep, flat)).lstrip(" -–—:;,.!?").rstrip(" -–—:;,")
    while True:
        # Punctuation may precede a decision word, so it is stripped with it.
        lead = re.match(r"[\W_]*([\w'’-]+)", flat)
        if lead is None or lead.group(1).casefold().strip("'’-") not in _LEADING_WORDS:
            break
        flat = flat[lead.end() :].lstrip(" -–—:;,.!?")
    return flat


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word boundary, ending in "..."."""
    if len(text) <= limit:
        return text
    if limit < 4:
        return ""
    cut = text[: limit - 3]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "..."


@dataclass(frozen=True)
class Tags:
    """What the gateway adds after the gist: urgency and due date."""

    urgent: str = ""
    due: str = ""

    def text(self) -> str:
        return " · ".join(t for t in (self.urgent, self.due) if t)


def subject(prefix: str, ask: str, reference: str, tags: Tags | None = None) -> str:
    """``<prefix>"<gist>" · <tags> [<reference>]``, at most 78 characters.

    The prefix names the kind of email ("Reminder 2 (overdue): "); the gist is
    shortened first, then dropped, so the kind, the tags and the reference
    always fit.
    """
    tail_parts = [tags.text()] if tags and tags.text() else []
    tail = " · ".join(tail_parts)
    suffix = (f" · {tail}" if tail else "") + f" [{reference}]"
    room = MAX_SUBJECT - len(prefix) - len(suffix) - 2
    cleaned = gist(ask)
    core = shorten(cleaned, room) if room >= 8 else ""
    line = f"{prefix}“{core}”{suffix}" if core else f"{prefix.rstrip(': ')}{suffix}"
    if len(line) > MAX_SUBJECT:
        line = line[: MAX_SUBJECT - 3].rstrip() + "..."
    return line
