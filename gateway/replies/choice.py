"""Which of the agent's choices a reply picks: a tapped choice button, or typed words.

A request filed with ``options: {"format": "multiple_choice", "choices": [...]}`` shows
the lawyer one button per choice. A button opens a reply with the subject
``CHOICE B [HFA-00012]`` and the body ``CHOICE B``: the letter is language-neutral and
nothing the agent wrote is in it (a choice's own words must never be read as a
decision on the proposed action).

Typed words pick a choice only when they name exactly one, with nothing that doubts it:

- its text, as the agent gave it ("Delaware law");
- its letter or number with a marker word ("Option B", "Variante 2", "l'option B",
  "选项B", "No. 2", "#2"), or alone as the whole answer ("B", "(b)", "2.");
- its place ("the second one", "die zweite", "la deuxième option", "二番目で"): an
  ordinal followed by a noun for a choice ("one", "Option") or by the end of the
  sentence, and not after an indefinite article ("a second" is a moment);
- a capital letter standing alone in a sentence ("We'll go with B."), except A and I,
  which are ordinary words.

Two choices named, a letter or number past the last choice, a question, a negation, a
hold-back or a retraction outside the choices' own words: no choice. The word tables
are ``lexicon/choices/<code>.toml``, one per table language; they are read together,
since an answer of two words ("die zweite") is too short to tell its language, and every
pattern is anchored (a marker, an ordinal with its noun or the sentence's end, or the
whole answer), so a word of one language is not read as another's in running text.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from typing import Any

from gateway import options
from gateway.errors import ReplyError
from gateway.replies.holdback import held_back, taken_back
from gateway.replies.kinds import Reading
from gateway.replies.language import script_languages
from gateway.replies.negation import is_negator
from gateway.replies.words import words

KEYWORD = "CHOICE"
LETTERS = "abcdefghij"
# A long answer that discusses the choices is not a pick of one.
_MAX_CHARS = 1000
_SUBJECT = re.compile(
    r"^\s*(?:(?:re|aw|antw|antwort|sv|vs|r|rif|ref|réf|tr|wg|fw|fwd|odp|ynt|回复|答复)\s?"
    r"(?:\[\d{1,4}\])?\s?[:：]\s*)*"
    rf"{KEYWORD}\s+([A-J])\s*\[([A-Za-z][A-Za-z0-9]{{0,15}}-\d{{1,12}})\]\s*$",
    re.IGNORECASE,
)
_REF = r"(?P<ref>10|[1-9]|[a-j])"
_NUMBER = r"(?P<ref>10|[1-9])"
# After a letter or number: not another letter or digit of the same word.
_REF_END = r"(?![0-9a-zà-öø-ÿ])"
_WHOLE = re.compile(r"^[(\[]?(10|[1-9]|[a-j])[)\].]?$")
_HASH = re.compile(r"(?<![\w#])#\s?" + _NUMBER + _REF_END)
# A capital letter standing alone: not part of a word, an initial ("J.") or a contraction.
_BARE = re.compile(r"(?<![0-9A-Za-zÀ-ÖØ-öø-ÿ'’\-.])([B-HJ])(?![0-9A-Za-zÀ-ÖØ-öø-ÿ'’\-]|\.\w)")
# A letter or number stands alone when no Latin letter or digit touches it: Chinese and
# Japanese write words around it without spaces ("选项A和B").
_NOT_LATIN_BEFORE = r"(?<![0-9a-zà-öø-ÿ'’])"
_NOT_LATIN_AFTER = r"(?![0-9a-zà-öø-ÿ'’])"
# The end of a sentence, or of a clause: "the second, please" ("the second clause" is not).
_SENTENCE_END = r"(?=\s*(?:[.!。！;；,，\n]|$))"
_STRIP = " \t\n.!:;,*_-–—\"'“”«»"


@dataclass(frozen=True)
class Named:
    """The choices a text names (0-based), and whether anything in it doubts a pick."""

    picked: frozenset[int]
    doubt: bool


@dataclass(frozen=True)
class _Ordinal:
    """One language's forms of one place, with the words that may and may not stand
    before them: Portuguese "a segunda" is "the second", English "a second" a moment."""

    place: int
    pattern: re.Pattern[str]
    before: frozenset[str]
    not_before: frozenset[str]


@dataclass(frozen=True)
class _Tables:
    markers: re.Pattern[str]
    numbers: re.Pattern[str]
    ordinals: tuple[_Ordinal, ...]
    pairs: re.Pattern[str]


def fold(text: str) -> str:
    """Case-folded character by character, so every position is the original's."""
    return "".join(c.casefold() if len(c.casefold()) == 1 else c.lower()[:1] for c in text)


def _bounded(entry: str) -> str:
    """``entry`` as a pattern that matches whole words (Chinese and Japanese have none)."""
    body = r"\s+".join(re.escape(part) for part in entry.split())
    start = r"(?<!\w)" if re.match(r"[^\W\u3040-\u30ff\u3400-\u9fff]", entry) else ""
    end = r"(?!\w)" if re.search(r"[^\W\u3040-\u30ff\u3400-\u9fff]$", entry) else ""
    return start + body + end


def _either(entries: set[str]) -> str:
    return "(?:" + "|".join(_bounded(e) for e in sorted(entries, key=len, reverse=True)) + ")"


@cache
def _tables() -> _Tables:
    markers: set[str] = set()
    numbers: set[str] = set()
    after: set[str] = set()
    conjunctions: set[str] = {",", "/", "&"}
    languages: list[dict[str, Any]] = []
    folder = resources.files("gateway.replies.lexicon").joinpath("choices")
    for path in sorted(folder.iterdir(), key=lambda entry: entry.name):
        if not path.name.endswith(".toml"):
            continue
        table = tomllib.loads(path.read_text(encoding="utf-8"))
        markers.update(fold(m) for m in table["markers"])
        numbers.update(fold(m) for m in table["number_markers"])
        after.update(fold(a) for a in table["after"])
        conjunctions.update(fold(c) for c in table["conjunctions"])
        languages.append(table)
    ending = rf"(?:\s*(?P<noun>{_either(after)})|{_SENTENCE_END})"
    joined = "|".join(
        _bounded(c) if c[0].isalnum() else re.escape(c)
        for c in sorted(conjunctions, key=len, reverse=True)
    )
    alone = rf"{_NOT_LATIN_BEFORE}(10|[1-9]|[a-j]){_NOT_LATIN_AFTER}"
    return _Tables(
        markers=re.compile(_either(markers) + r"[\s:：]*[(\[]?" + _REF + r"[)\]]?" + _REF_END),
        numbers=re.compile(_either(numbers) + r"[\s.:：]*" + _NUMBER + _REF_END),
        ordinals=tuple(
            _Ordinal(
                place,
                re.compile(_either({fold(f) for f in forms}) + ending),
                frozenset(fold(b) for b in table["before"]),
                frozenset(fold(n) for n in table["not_before"]),
            )
            for table in languages
            for place, forms in enumerate(table["ordinals"])
        ),
        pairs=re.compile(rf"{alone}\s*(?:{joined})\s*(?=(10|[1-9]|[a-j]){_NOT_LATIN_AFTER})"),
    )


def _index(ref: str) -> int:
    return LETTERS.index(ref) if ref in LETTERS else int(ref) - 1


class _Reader:
    """One text read for the choices it names; spans already read are not read again."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded = fold(text)
        self.taken: list[tuple[int, int]] = []
        self.named: set[int] = set()

    def free(self, start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in self.taken)

    def take(self, start: int, end: int, index: int) -> None:
        self.taken.append((start, end))
        self.named.add(index)

    def scan(self, pattern: re.Pattern[str], index: int | None = None) -> None:
        for match in pattern.finditer(self.folded):
            if not self.free(match.start(), match.end()):
                continue
            ref = match.groupdict().get("ref")
            chosen = index if ref is None else _index(ref)
            if chosen is not None:
                self.take(match.start(), match.end(), chosen)

    def _word_before(self, start: int) -> str | None:
        before = re.search(r"(\w+)[^\w\n]*$", self.folded[:start])
        return None if before is None else before.group(1)

    def scan_ordinal(self, ordinal: _Ordinal) -> None:
        """An ordinal names a place with a noun after it ("the second one"), after an
        article or a verb of choosing ("die zweite", "I'd take the second."), or as the
        whole answer ("Second."); anywhere else it is an ordinary word ("prima"), and
        never after an indefinite article ("a second", "un segundo")."""
        whole = self.folded.strip(_STRIP)
        for match in ordinal.pattern.finditer(self.folded):
            start, end = match.start(), match.end()
            before = self._word_before(start)
            if not self.free(start, end) or before in ordinal.not_before:
                continue
            said = self.folded[start:end].strip(_STRIP)
            if match.group("noun") or said == whole or before in ordinal.before:
                self.take(start, end, ordinal.place)

    def scan_pairs(self) -> None:
        """Letters or numbers joined by "and", "or", a comma ("A or B", "1, 2"): each one
        is named, however it is written."""
        for match in _tables().pairs.finditer(self.folded):
            for group in (1, 2):
                start, end = match.span(group)
                if self.free(start, end):
                    self.take(start, end, _index(match.group(group)))

    def scan_words(self, choices: tuple[str, ...]) -> None:
        """A word of one choice's text that no other choice has ("Delaware" of "Delaware
        law" beside "English law") names that choice too."""
        owners: dict[str, set[int]] = {}
        for index, choice in enumerate(choices):
            for word in words(fold(choice)):
                owners.setdefault(word.text, set()).add(index)
        for word in words(self.folded):
            owner = owners.get(word.text, set())
            distinctive = len(owner) == 1 and (len(word.text) >= 4 or not word.text.isascii())
            if distinctive and self.free(word.start, word.end):
                self.take(word.start, word.end, next(iter(owner)))

    def rest(self) -> str:
        """The text with every span read blanked out: what may still doubt the pick."""
        chars = list(self.folded)
        for start, end in self.taken:
            chars[start:end] = " " * (end - start)
        return "".join(chars)


def named_choices(text: str, choices: tuple[str, ...]) -> Named:
    """The choices ``text`` names, and whether it doubts them (see the module's rules)."""
    if len(text) > _MAX_CHARS:
        return Named(frozenset(), True)
    reader = _Reader(text)
    # A choice's own text first, the longest first: its words are not read again.
    by_length = sorted(range(len(choices)), key=lambda n: len(choices[n]), reverse=True)
    for index in by_length:
        reader.scan(re.compile(_bounded(fold(" ".join(choices[index].split())))), index)
    tables = _tables()
    reader.scan(tables.markers)
    reader.scan(tables.numbers)
    reader.scan(_HASH)
    reader.scan_words(choices)
    for ordinal in tables.ordinals:
        reader.scan_ordinal(ordinal)
    reader.scan_pairs()
    whole = reader.folded.strip(_STRIP)
    if (match := _WHOLE.match(whole)) is not None and not reader.named:
        start = reader.folded.index(whole)
        reader.take(start, start + len(whole), _index(match.group(1)))
    for match in _BARE.finditer(text):
        if reader.free(match.start(), match.end()):
            reader.take(match.start(), match.end(), _index(match.group(1).lower()))
    return Named(frozenset(reader.named), _doubted(reader.rest(), len(choices), reader.named))


def _doubted(rest: str, count: int, named: set[int]) -> bool:
    if any(index >= count for index in named):
        # "Option E" of three: a choice the agent did not offer.
        return True
    if "?" in rest or "？" in rest:
        return True
    found = words(rest)
    if any(is_negator(word.text, everywhere=True) for word in found):
        return True
    held = held_back(rest, found, 0, script_languages(rest))
    return held is not None or taken_back(rest, found, 0) is not None


def tapped_letter(subject: str | None, reference: str) -> int | None:
    """The choice a button's subject names (0-based); -1 when it names another request."""
    match = _SUBJECT.match((subject or "")[:300])
    if match is None:
        return None
    if match.group(2).upper() != reference.upper():
        return -1
    return LETTERS.index(match.group(1).lower())


def read_choice(
    said: str, choices: tuple[str, ...], subject: str | None, reference: str
) -> str | None:
    """The choice a reply picks, exactly as the agent wrote it; None when it picks none."""
    if len(choices) < 2:
        return None
    tapped = tapped_letter(subject, reference)
    named = named_choices(said, choices)
    if tapped is not None:
        # The button's letter decides; what is typed under it may only agree with it.
        if not 0 <= tapped < len(choices) or named.doubt or named.picked - {tapped}:
            return None
        return choices[tapped]
    if named.doubt or len(named.picked) != 1:
        return None
    return choices[next(iter(named.picked))]


def with_choice(
    reading: Reading, fields: dict[str, Any] | None, subject: str | None, reference: str
) -> Reading:
    """The reading, with the choice its reply picks when the request (its ``fields``)
    offered choices (``options``)."""
    choices = options.shape_of(fields).choices
    try:
        picked = read_choice(reading.said, choices, subject, reference) if choices else None
    except Exception as exc:  # the package's contract: nothing but ReplyError escapes
        raise ReplyError(f"cannot read the choice: {type(exc).__name__}") from exc
    if picked is None:
        return reading
    if reading.kind == "no_answer":
        # A pick is an answer, however short.
        return replace(reading, kind="reply", choice=picked)
    return replace(reading, choice=picked)
