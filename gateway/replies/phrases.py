"""Finding a table's phrases in a reply's words, quickly and the same way for every key.

A phrase may hold a gap ("ask * instead": one to a few words stand for the "*"),
and a kana entry matches the start of a kana word, which carries its particles.
Phrases are looked up by their first word, so each word of a reply is tried
against a handful of phrases rather than every phrase of every language.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from gateway.replies.lexicon import BY_LANGUAGE, GAP, LEXICON, Phrase
from gateway.replies.words import Word, is_kana, same_word

# How many words a "*" in a phrase may stand for.
GAP_WORDS = 4


@dataclass(frozen=True)
class Index:
    by_first: dict[str, tuple[Phrase, ...]]
    kana: tuple[Phrase, ...]

    def candidates(self, word: str) -> tuple[Phrase, ...]:
        found = self.by_first.get(word, ())
        if self.kana and is_kana(word):
            found += tuple(p for p in self.kana if word.startswith(p[0]) and p not in found)
        return found


def index(phrases: Iterable[Phrase]) -> Index:
    by_first: dict[str, list[Phrase]] = {}
    kana: list[Phrase] = []
    for wanted in sorted(set(phrases), key=lambda p: (-len(p), p)):
        if not wanted or wanted[0] == GAP:
            continue
        by_first.setdefault(wanted[0], []).append(wanted)
        if is_kana(wanted[0]):
            kana.append(wanted)
    return Index({k: tuple(v) for k, v in by_first.items()}, tuple(kana))


@cache
def own_index(language: str, key: str) -> Index:
    """The phrases of one language's ``key`` (see ``lexicon.OWN_KEYS``)."""
    return index(BY_LANGUAGE[language].phrases.get(key, ()))


@cache
def merged_index(key: str) -> Index:
    """Every language's phrases of ``key``: for vetoes, which err towards no decision."""
    return index(p for language in LEXICON.languages.values() for p in language.phrases(key))


def match_end(found: list[Word], at: int, wanted: Phrase) -> int:
    """The index after the words of ``wanted`` starting at ``at``, or 0 if it is not there."""
    position = at
    for number, part in enumerate(wanted):
        if part == GAP:
            rest = wanted[number + 1 :]
            for skip in range(1, GAP_WORDS + 1):
                end = match_end(found, position + skip, rest) if rest else position + skip
                if end and position + skip <= len(found):
                    return end
            return 0
        if position >= len(found) or not same_word(found[position].text, part):
            return 0
        position += 1
    return position


def phrase_at(found: list[Word], at: int, phrases: Index) -> tuple[Phrase, int] | None:
    """The longest phrase of ``phrases`` that starts at word ``at``, and where it ends."""
    for wanted in phrases.candidates(found[at].text):
        end = match_end(found, at, wanted)
        if end:
            return wanted, end
    return None


def find(found: list[Word], phrases: Index, start: int = 0) -> tuple[int, int] | None:
    """(first word, end) of the first phrase of ``phrases`` at or after word ``start``."""
    by_first, kana = phrases.by_first, phrases.kana
    for at in range(start, len(found)):
        # Most words begin no phrase: skipped here, without a call per word.
        text = found[at].text
        if text not in by_first and not (kana and is_kana(text)):
            continue
        hit = phrase_at(found, at, phrases)
        if hit is not None:
            return at, hit[1]
    return None
