"""Subjects a lawyer can scan in an inbox: the ask first, tags, one kind per email.

Every subject is at most 78 characters. The agent writes only the quoted
gist; the gateway writes the rest. The gist keeps the agent's words as
written, so the quotation marks never stand around words the agent did not
write: hidden controls are shown escaped and reference-like tokens
("[HFA-00001]", "Re:", "Bcc:") are removed, so nothing in the gist passes
for the gateway's own header text. A subject never decides anything: the
decision reader reads only a quick reply's own subject form.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from gateway.render import shown

MAX_SUBJECT = 78
ELLIPSIS = "…"

_REFERENCE_LIKE = re.compile(
    r"\[[^\]]{0,40}\]|\bHFA-\d+\b|\b(?:re|aw|fwd?|wg|sv|tr|bcc|cc|to|from|subject|"
    r"reply-to)\s*:",
    re.IGNORECASE,
)
_SPACES = re.compile(r"\s+")


# Each email's subject and preview line both start from the same ask.
@lru_cache(maxsize=256)
def gist(text: str) -> str:
    """The agent's ask, cleaned for a subject line (not yet shortened): its words kept."""
    first = next((line for line in str(text).splitlines() if line.strip()), "")
    flat = shown(_REFERENCE_LIKE.sub(" ", first.replace("\t", " ")))
    return _SPACES.sub(" ", flat).strip(" -–—:;,")


_ASIDE = re.compile(r"\s\([^()]{4,}\)")


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word boundary, ending in an ellipsis.

    An aside in parentheses gives way first ("Is clause 7 (…) acceptable?"), so
    the words that say what is asked stay; a word is cut inside only when it is
    longer than half the room (a URL, a token).
    """
    if len(text) <= limit:
        return text
    if limit < 2:
        return ""
    while len(text) > limit and _ASIDE.search(text):
        text = _ASIDE.sub(" (" + ELLIPSIS + ")", text, count=1)
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    cut = cut[:space] if space >= limit // 2 else cut[: limit - 1]
    return cut.rstrip(" ,;:-–—") + ELLIPSIS


@dataclass(frozen=True)
class Tags:
    """What the gateway adds after the gist: urgency and due date."""

    urgent: str = ""
    due: str = ""

    def text(self) -> str:
        return " · ".join(t for t in (self.urgent, self.due) if t)


# The ask keeps at least this many characters, about four words (or all of it): the
# kind's long prefix and then the tags give way first, so every kind of email, in every
# language, names the ask.
MIN_ASK = 24


def subject(
    prefix: str,
    ask: str,
    reference: str,
    tags: Tags | None = None,
    short: str | Sequence[str] = (),
) -> str:
    """``<prefix>"<gist>" · <tags> [<reference>]``, at most 78 characters.

    The prefix names the kind of email ("Reminder 2 (overdue): "). When the ask
    would keep fewer than MIN_ASK characters, the prefix gives way to its
    ``short`` forms first (shorter and shorter), then the due date, then the
    urgency; only then is the ask shortened further, so the kind and the
    reference always fit and the ask's first words stay.
    """
    cleaned = gist(ask)
    wanted = min(len(cleaned), MIN_ASK)
    urgent = Tags(tags.urgent) if tags else None
    forms = [f for f in ([short] if isinstance(short, str) else list(short)) if f]
    last = forms[-1] if forms else prefix
    tries = [(prefix, tags), *((f, tags) for f in forms), (last, urgent), (last, None)]
    for kind, tagged in tries:
        line, room = _line(kind, cleaned, reference, tagged)
        if room >= wanted:
            return line
    return line


def _line(prefix: str, cleaned: str, reference: str, tags: Tags | None) -> tuple[str, int]:
    """The subject with these parts, and how many characters the ask had room for."""
    tail = tags.text() if tags else ""
    suffix = (f" · {tail}" if tail else "") + f" [{reference}]"
    room = MAX_SUBJECT - len(prefix) - len(suffix) - 2
    core = shorten(cleaned, room) if room >= 8 else ""
    line = f"{prefix}“{core}”{suffix}" if core else f"{prefix.rstrip(': ')}{suffix}"
    if len(line) > MAX_SUBJECT:
        line = shorten(line, MAX_SUBJECT)
    return line, room
