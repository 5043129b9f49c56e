"""Is an approval word negated, in any language?

An approval word (a stem such as "approv" or a whole approval phrase) counts
as negated when a negator stands up to ``REACH_BEFORE`` words before it ("I
do not think we can approve"), or up to ``REACH_AFTER`` words after it in the
same sentence ("Ich genehmige das nicht", "承認しません") until a clause that
states a condition ("Approved, but do not send it" is a condition, not a
negation). Phrases such as "no objection" are not negations. A language's local negators (Finnish "en")
only count next to that language's own approval words.
"""

from __future__ import annotations

import bisect

from gateway.replies.lexicon import LEXICON, Phrase
from gateway.replies.words import Word, is_kana, matches_at, sentence_spans, words

REACH_BEFORE = 5
REACH_AFTER = 4
_MAX_SCAN = 200_000


def exempt_positions(found: list[Word]) -> set[int]:
    """Indexes of words inside a "no objection"-like phrase."""
    exempt: set[int] = set()
    for index, word in enumerate(found):
        for wanted in LEXICON.not_negating_by_first.get(word.text, ()):
            if matches_at(found, index, wanted):
                exempt.update(range(index, index + len(wanted)))
                break
    return exempt


def is_negator(word: str, language: str | None = None, *, everywhere: bool = False) -> bool:
    """``word`` negates; ``everywhere`` counts every language's local negators too."""
    if word in LEXICON.negators or word.endswith("n't"):
        return True
    if language is not None and word in LEXICON.local_negators.get(language, frozenset()):
        return True
    if everywhere and any(word in local for local in LEXICON.local_negators.values()):
        return True
    # Japanese negation is glued to the verb: "しません", "できかねます".
    return is_kana(word) and any(is_kana(n) and n in word for n in LEXICON.negators)


def approval_at(found: list[Word], index: int) -> tuple[Phrase, str] | None:
    """The approval mark (and its language) starting at ``index``, if any."""
    word = found[index].text
    for wanted, language in LEXICON.marks_by_first.get(word, ()):
        if matches_at(found, index, wanted):
            return wanted, language
    if word.startswith(LEXICON.stems):
        stem = next(s for s in LEXICON.stems if word.startswith(s))
        return (stem,), LEXICON.stem_language[stem]
    return None


def negated(
    found: list[Word],
    index: int,
    size: int,
    language: str | None,
    sentence_end: int,
    exempt: set[int],
) -> bool:
    """The approval of ``size`` words at ``index`` has a negator within reach."""
    before = range(max(0, index - REACH_BEFORE), index)
    after = range(index + size, min(len(found), index + size + REACH_AFTER))
    for position in (*before, *after):
        if position > index and _ends_reach(found, position, sentence_end):
            break
        if position in exempt:
            continue
        if is_negator(found[position].text, language):
            return True
    return False


_CLAUSE_BREAK = frozenset(",;:—–-(，、；：")


def _ends_reach(found: list[Word], position: int, sentence_end: int) -> bool:
    """Word ``position`` (after the approval) is in another sentence or a condition clause."""
    word = found[position]
    if word.start >= sentence_end:
        return True
    return word.text in LEXICON.clause_openers and any(c in _CLAUSE_BREAK for c in word.gap)


def has_negated_approval(text: str) -> bool:
    """Some approval word in ``text`` is negated, or a look-alike such as "disapprove" appears."""
    text = text[:_MAX_SCAN]
    found = words(text)
    ends = [end for _, end in sentence_spans(text)] or [len(text)]
    exempt = exempt_positions(found)
    for index, word in enumerate(found):
        if word.text.startswith(LEXICON.negated_forms):
            return True
        mark = approval_at(found, index)
        if mark is None:
            continue
        at = bisect.bisect_right(ends, word.start)
        sentence_end = ends[at] if at < len(ends) else len(text)
        if negated(found, index, len(mark[0]), mark[1], sentence_end, exempt):
            return True
    return False
