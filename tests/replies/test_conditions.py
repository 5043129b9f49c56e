"""Condition markers found by first word are the ones a scan of every phrase finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.replies import conditions
from gateway.replies.lexicon import LEXICON, Phrase
from gateway.replies.words import Word, matches_at, words

PHRASES = [*conditions.CONDITION_PHRASES, *LEXICON.contingent, *LEXICON.not_negating]
VOCABULARY = sorted({word for phrase in PHRASES for word in phrase})
# Kana particles glued onto a word, and plain endings.
ENDINGS = ["", "が", "ば", "は", "けど", "s", "x"]

PIECE = st.one_of(
    st.sampled_from(PHRASES).map(" ".join),
    st.tuples(st.sampled_from(VOCABULARY), st.sampled_from(ENDINGS)).map("".join),
)
TEXT = st.tuples(st.lists(PIECE, min_size=1, max_size=10), st.sampled_from([" ", ", ", "、"]))


def scanned(found: list[Word], index: int, phrases: list[Phrase]) -> int:
    for wanted in phrases:
        if matches_at(found, index, wanted):
            return len(wanted)
    return 0


@settings(max_examples=500, deadline=None)
@given(TEXT)
def test_markers_by_first_word_are_those_a_full_scan_finds(text: tuple[list[str], str]) -> None:
    found = words(text[1].join(text[0]))
    for index in range(len(found)):
        for phrases, markers in (
            (LEXICON.contingent, conditions._CONTINGENT),
            (conditions.CONDITION_PHRASES, conditions._CONDITIONS),
        ):
            assert conditions._marker_at(found, index, markers) == scanned(found, index, phrases)
