"""What an approval is subject to: "Approved, subject to: - a - b".

An approval whose sentence carries a condition word ("subject to", "provided
that", "but only", "unless") or that ends in ":" above a list is an approval
WITH conditions, and the conditions are returned as a list (the list items,
or the text after the approval word). A condition the same sentence says is
not met ("Approved if the DPA is signed, which it is not") makes the approval
no decision at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.replies.lexicon import LEXICON, Phrase
from gateway.replies.negation import is_negator
from gateway.replies.phrases import find, merged_index
from gateway.replies.words import Word, is_kana, list_item, matches_at, words

# Marks after which a clause starts that can say the condition is not met.
_CLAUSE_BREAK = (",", ";", "—", "–", " - ", "(", "，", "、", "；")
_MAX_CONDITIONS = 50
MAX_CONDITION_CHARS = 2000


@dataclass(frozen=True)
class ConditionsFound:
    conditions: tuple[str, ...] = ()
    unmet: bool = False


@dataclass(frozen=True)
class _Markers:
    """Marker phrases by first word, each with its place in the lexicon's order (the
    first phrase that matches is the marker). A kana first word is kept apart: it also
    matches a longer kana word, which carries its particles glued on (``same_word``)."""

    by_first: dict[str, list[tuple[int, Phrase]]]
    kana: list[tuple[int, Phrase]]


def _markers(phrases: list[Phrase]) -> _Markers:
    by_first: dict[str, list[tuple[int, Phrase]]] = {}
    kana: list[tuple[int, Phrase]] = []
    for place, phrase in enumerate(phrases):
        if not phrase:
            continue  # matches nothing
        if is_kana(phrase[0]):
            kana.append((place, phrase))
        else:
            by_first.setdefault(phrase[0], []).append((place, phrase))
    return _Markers(by_first, kana)


# Every word of a sentence is tried against every marker: looked up by first word.
_CONTINGENT = _markers(LEXICON.contingent)
# A proviso of any language ("solange", "as long as") makes the approval conditional too.
_PROVISOS = [p for language in LEXICON.languages.values() for p in language.phrases("provisos")]
CONDITION_PHRASES = sorted({*LEXICON.conditions, *_PROVISOS}, key=lambda p: (-len(p), p))
_CONDITIONS = _markers(CONDITION_PHRASES)


def _marker_at(found: list[Word], index: int, markers: _Markers) -> int:
    first = found[index].text
    candidates = markers.by_first.get(first, [])
    if markers.kana and is_kana(first):
        glued = [(place, p) for place, p in markers.kana if first.startswith(p[0])]
        if glued:
            candidates = sorted([*candidates, *glued])
    for _place, wanted in candidates:
        if matches_at(found, index, wanted):
            return len(wanted)
    return 0


def read_conditions(region: str, text: str, sentence_end: int, after: int) -> ConditionsFound:
    """Conditions of the approval whose words end at ``after`` in ``region``.

    ``region`` is the first paragraph of ``text`` (the whole new text, where a
    list may continue after a blank line) and ``sentence_end`` ends the
    approval's sentence in ``region``.
    """
    sentence = region[after:sentence_end]
    found = words(sentence)
    contingent_at = condition_at = None
    for index in range(len(found)):
        if contingent_at is None and _marker_at(found, index, _CONTINGENT):
            contingent_at = index
        if condition_at is None and _marker_at(found, index, _CONDITIONS):
            condition_at = index
    if contingent_at is not None and _said_unmet(sentence, found, contingent_at):
        # "Approved once the board agrees, which it has not": nothing is decided. A
        # negation inside the condition ("if liability does not exceed 1M") is the limit.
        return ConditionsFound(unmet=True)
    if condition_at is not None and _said_unmet(sentence, found, condition_at):
        return ConditionsFound(unmet=True)
    items = _list_after(region, text, sentence_end)
    if items:
        return ConditionsFound(tuple(items))
    rest = region[after:].lstrip(" \t\n*_.,;:!-–—。、，：").rstrip()
    marked = contingent_at is not None or condition_at is not None
    if not marked and not _rest_has_condition(region[sentence_end:]):
        return ConditionsFound()
    return ConditionsFound((rest[:MAX_CONDITION_CHARS],) if rest else ())


def _said_unmet(sentence: str, found: list[Word], marker: int) -> bool:
    """A negator in a later clause of the condition's sentence."""
    marker_end = found[marker].end
    for word in found[marker + 1 :]:
        between = sentence[marker_end : word.start]
        if any(mark in between for mark in _CLAUSE_BREAK) and is_negator(
            word.text, everywhere=True
        ):
            # "...; private Adressen bitte nicht übermitteln": an instruction, not a
            # statement that the condition is unmet; it is one more condition.
            clause = sentence[max(sentence.rfind(m, 0, word.start) for m in _CLAUSE_BREAK) :]
            if find(words(clause), merged_index("obligations")) is None:
                return True
    return False


def _rest_has_condition(rest: str) -> bool:
    found = words(rest)
    return any(_marker_at(found, i, _CONDITIONS) for i in range(len(found)))


def _list_after(region: str, text: str, sentence_end: int) -> list[str]:
    """The list items that follow a sentence ending in ":" (blank lines allowed)."""
    if not region[:sentence_end].rstrip(" \t*_").endswith((":", "：")):
        return []
    start = text.find(region[:sentence_end])
    if start < 0:
        return []
    items: list[str] = []
    for line in text[start + sentence_end :].split("\n"):
        if not line.strip():
            if items:
                continue
            continue
        item = list_item(line)
        if item is None:
            if items and line.startswith((" ", "\t")):
                items[-1] = f"{items[-1]} {line.strip()}"[:MAX_CONDITION_CHARS]
                continue
            if not items:
                # "Approved, subject to:\n\nthe cap being raised." : one condition.
                items.append(line.strip()[:MAX_CONDITION_CHARS])
            break
        items.append(item[:MAX_CONDITION_CHARS])
        if len(items) == _MAX_CONDITIONS:
            break
    return items
