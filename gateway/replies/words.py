"""Words and sentences of a reply, the same way for every language.

Chinese and Japanese are written without spaces, so an ideograph is a word of
its own and a run of kana is one word; every other script splits on what is
not a letter or digit (apostrophes inside a word stay: "n'approuve").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_TOKEN = re.compile(
    rf"[\u3040-\u309f]+|[\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]+|[{_CJK}]"
    rf"|[^\W{_CJK}{_KANA}]+(?:['’][^\W{_CJK}{_KANA}]+)*"
)
_KANA_WORD = re.compile(rf"^[{_KANA}]+$")
# Where a sentence ends: ASCII marks before a space or the end, CJK marks anywhere.
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？]")
_QUESTION_END = re.compile(r"[?？][?？!！.…]*\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•·–]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+(?P<item>\S.*)$", re.I)


@dataclass(frozen=True)
class Word:
    text: str  # casefolded, with ’ written as '
    start: int
    end: int
    gap: str = ""  # what stands between the previous word and this one, blanks removed


def fold(text: str) -> str:
    return text.casefold().replace("’", "'")


def words(text: str) -> list[Word]:
    """The words of ``text``, in order (a list of the caller's own)."""
    return list(_words(text))


# A reply's paragraph is split into words and sentences by several readers in turn:
# each text is split once (the few latest texts are kept).
_KEPT = 32


@lru_cache(maxsize=_KEPT)
def _words(text: str) -> tuple[Word, ...]:
    found: list[Word] = []
    previous_end = 0
    for match in _TOKEN.finditer(text):
        gap = "".join(text[previous_end : match.start()].split())
        found.append(Word(fold(match.group()), match.start(), match.end(), gap))
        previous_end = match.end()
    return tuple(found)


def forget_splits() -> None:
    """Drop the kept splits: a new reply is being read (and its text kept no longer)."""
    _words.cache_clear()
    sentence_spans.cache_clear()


def phrase(text: str) -> tuple[str, ...]:
    """A lexicon entry as the word sequence it must match."""
    return tuple(word.text for word in words(text))


def is_kana(word: str) -> bool:
    return bool(_KANA_WORD.match(word))


def same_word(found: str, wanted: str) -> bool:
    """``found`` (from the reply) is the lexicon word ``wanted``.

    A kana word carries its particles glued on ("しますが" is "します" + "が"),
    so a kana entry matches the start of a kana word.
    """
    if found == wanted:
        return True
    return is_kana(wanted) and is_kana(found) and found.startswith(wanted)


def matches_at(found: list[Word], index: int, wanted: tuple[str, ...]) -> bool:
    if not wanted or index + len(wanted) > len(found):
        return False
    return all(same_word(found[index + i].text, w) for i, w in enumerate(wanted))


@lru_cache(maxsize=_KEPT)
def sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each sentence.

    A line break ends a sentence only where the line itself ends one (a
    terminal mark or ":"), the next line is a list item or blank, or the line
    is short: plain-text clients wrap long lines, and "Approved if the DPA
    is\\nsigned, which it is not." is one sentence.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    lines = text.split("\n")
    position = 0
    for number, line in enumerate(lines):
        line_end = position + len(line)
        for mark in _SENTENCE_END.finditer(line):
            end = position + mark.end()
            if text[start:end].strip():
                spans.append((start, end))
            start = end
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if (
            line.rstrip().endswith((":", "："))
            or not following.strip()
            or _LIST_ITEM.match(following)
            or len(line.strip()) < 50
        ):
            if text[start:line_end].strip():
                spans.append((start, line_end))
            start = line_end + 1
        position = line_end + 1
    if start < len(text) and text[start:].strip():
        spans.append((start, len(text)))
    return tuple(spans)


def is_question(sentence: str) -> bool:
    return bool(_QUESTION_END.search(sentence.rstrip(" \t*_\"'”’»)")))


def list_item(line: str) -> str | None:
    match = _LIST_ITEM.match(line)
    return match.group("item").strip() if match else None
