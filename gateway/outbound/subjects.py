"""Subjects a lawyer can scan in an inbox: the ask first, tags, one kind per email.

Every subject is at most 78 characters. The agent writes only the quoted
gist; the gateway writes the rest. The gist is cleaned so that it cannot pass
for the gateway's own words: hidden controls are shown escaped, reference-like
tokens ("[HFA-00001]", "Re:", "Bcc:") and decision words ("APPROVED", "yes")
are removed, so an inbox row never reads as though something was decided.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

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
# The reply parser's word tables (gateway/replies/lexicon, read here as data: the two
# packages share no code). Phrases of these kinds are removed wherever they stand, since
# one next to a quick reply's keyword would make it ambiguous ...
_ANYWHERE_KINDS = ("approve", "reject", "decline")
# ... and these only where they would open the subject: elsewhere they decide nothing.
_LEADING_KINDS = ("question", "close", "acknowledge", "yes", "no")
_LEXICON = Path(__file__).resolve().parent.parent / "replies" / "lexicon"
# The same words as the parser's (gateway/replies/words.py): CJK one by one, kana runs.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_TOKEN = re.compile(
    rf"[\u3040-\u309f]+|[\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]+|[{_CJK}]"
    rf"|[^\W{_CJK}{_KANA}]+(?:['’][^\W{_CJK}{_KANA}]+)*"
)
_SPACES = re.compile(r"\s+")


def _tokens(text: str) -> list[str]:
    return [m.group().casefold().replace("’", "'") for m in _TOKEN.finditer(text)]


@dataclass(frozen=True)
class _Phrases:
    """The decision phrases, indexed by first word: each subject looks words up, never scans."""

    # First word -> the lengths of the phrases it opens, longest first.
    anywhere: dict[str, tuple[int, ...]]
    leading: dict[str, tuple[int, ...]]
    anywhere_set: frozenset[tuple[str, ...]]
    leading_set: frozenset[tuple[str, ...]]
    stems: tuple[str, ...]


def _by_first_word(phrases: frozenset[tuple[str, ...]]) -> dict[str, tuple[int, ...]]:
    sizes: dict[str, set[int]] = {}
    for phrase in phrases:
        sizes.setdefault(phrase[0], set()).add(len(phrase))
    return {word: tuple(sorted(lengths, reverse=True)) for word, lengths in sizes.items()}


@cache
def _phrases() -> _Phrases:
    anywhere: set[tuple[str, ...]] = set()
    leading: set[tuple[str, ...]] = set()
    stems = set(_DECISION_STEMS)
    for path in sorted(_LEXICON.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for kinds, into in ((_ANYWHERE_KINDS, anywhere), (_LEADING_KINDS, leading)):
            for kind in kinds:
                into.update(t for t in (tuple(_tokens(e)) for e in data.get(kind, [])) if t)
        stems.update(str(stem).casefold() for stem in data.get("approval_stems", []))
    everywhere, opening = frozenset(anywhere), frozenset(leading | anywhere)
    return _Phrases(
        _by_first_word(everywhere),
        _by_first_word(opening),
        everywhere,
        opening,
        tuple(sorted(stems)),
    )


def _drop_phrases(text: str) -> str:
    """``text`` without any decision phrase (or approval stem) of any language."""
    phrases = _phrases()
    matches = list(_TOKEN.finditer(text))
    words = [m.group().casefold().replace("’", "'") for m in matches]
    drop: set[int] = set()
    for i, word in enumerate(words):
        if word.startswith(phrases.stems):
            drop.add(i)
        # The longest phrase that starts here, as a scan of every length would find it.
        for size in phrases.anywhere.get(word, ()):
            if i + size <= len(words) and tuple(words[i : i + size]) in phrases.anywhere_set:
                drop.update(range(i, i + size))
                break
    out, last = [], 0
    for i in sorted(drop):
        out.append(text[last : matches[i].start()])
        last = matches[i].end()
    out.append(text[last:])
    return "".join(out)


def _drop_leading(text: str) -> str:
    """Remove decision phrases that would open the line, until none does."""
    phrases = _phrases()
    while True:
        text = text.lstrip(" -–—:;,.!?\"'“”‘’«»()[]*_")
        matches = list(_TOKEN.finditer(text[:400]))
        words = [m.group().casefold().replace("’", "'") for m in matches]
        sizes = phrases.leading.get(words[0], ()) if words else ()
        cut = next(
            (n for n in sizes if n <= len(words) and tuple(words[:n]) in phrases.leading_set),
            0,
        )
        if not cut:
            return text
        text = text[matches[cut - 1].end() :]


# Each email's subject and preview line both start from the same ask.
@lru_cache(maxsize=256)
def gist(text: str) -> str:
    """The agent's ask, cleaned for a subject line (not yet shortened)."""
    first = next((line for line in str(text).splitlines() if line.strip()), "")
    flat = shown(_REFERENCE_LIKE.sub(" ", first.replace("\t", " ")))
    flat = _SPACES.sub(" ", _drop_phrases(flat))
    return _drop_leading(flat).rstrip(" -–—:;,")


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
