"""Property tests: no yes-word continuation, hold-back, go-ahead with another step or
self-correction ever approves, in any language of the tables.

Each property builds replies from one language's own table entries (its yes-words,
approval words, hold-backs, go-ahead words) with neutral filler around them, and reads
them against an ask that IS whether to act (so a yes would approve, if read as one).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.replies import DecisionKind, decide_answer, read_decision
from gateway.replies.lexicon import LEXICON
from tests.replies.adversarial import NDA
from tests.replies.typed import filled

_LANGUAGES = sorted(LEXICON.languages)
_FILLER = st.lists(
    st.sampled_from(
        ["the", "contract", "draft", "Helix", "NDA", "clause", "7", "das", "le", "el", "het"]
    ),
    max_size=3,
).map(" ".join)
_END = st.sampled_from([".", "", "!", " :)", "\n\nThanks"])
_SEP = st.sampled_from([", ", ". ", " - ", "; ", ",\n", " "])


def _entries(key: str) -> st.SearchStrategy[tuple[str, str]]:
    return st.sampled_from(
        [(code, entry) for code in _LANGUAGES for entry in LEXICON.languages[code].entries[key]]
    )


def _same_language(first: str, second: str) -> st.SearchStrategy[tuple[str, str]]:
    """An entry of ``first`` and one of ``second``, from the same language."""
    pairs = [
        (a, b)
        for code in _LANGUAGES
        for a in LEXICON.languages[code].entries[first]
        for b in LEXICON.languages[code].entries[second]
    ]
    return st.sampled_from(pairs)


def _approves(text: str) -> bool:
    return decide_answer(read_decision(text, None), NDA).kind is DecisionKind.APPROVAL


@settings(max_examples=400, deadline=None)
@given(_same_language("yes", "holdbacks"), _SEP, _FILLER, _FILLER, _END)
def test_a_yes_word_with_a_deferral_never_approves(
    pair: tuple[str, str], sep: str, before: str, after: str, end: str
) -> None:
    yes, holdback = pair
    assert not _approves(f"{yes}{sep}{before} {filled(holdback)} {after}{end}")


@settings(max_examples=300, deadline=None)
@given(_entries("yes"), st.sampled_from([", ", " - "]), _FILLER, _END)
def test_a_yes_word_with_anything_but_agreement_never_approves(
    yes: tuple[str, str], sep: str, continuation: str, end: str
) -> None:
    # "Yes, the draft" / "Yes - clause 7": an answer to something, not the action's approval.
    if continuation:
        assert not _approves(f"{yes[1]}{sep}{continuation}{end}")


@settings(max_examples=400, deadline=None)
@given(_same_language("approve", "holdbacks"), _SEP, _FILLER, _FILLER, _END)
def test_an_approval_with_a_hold_back_never_approves(
    pair: tuple[str, str], sep: str, before: str, after: str, end: str
) -> None:
    approval, holdback = pair
    assert not _approves(f"{approval}{sep}{before} {filled(holdback)} {after}{end}")


@settings(max_examples=300, deadline=None)
@given(
    _entries("needs_stop"),
    st.sampled_from(["and", "with", "und", "et", "y", "e", "en", "i", "og", "och", "ja"]),
    _FILLER,
    _END,
)
def test_go_ahead_with_another_step_never_approves(
    go_ahead: tuple[str, str], joined: str, step: str, end: str
) -> None:
    assert not _approves(f"{go_ahead[1]} {joined} {step or 'send me the draft'}{end}")


@settings(max_examples=400, deadline=None)
@given(
    _entries("approve"),
    st.sampled_from(
        ["", "Oh ", "Ah ", "Hmm, ", "Uh, ", "Äh, ", "Euh ", "Ay ", "Ehm ", "Och ", "あ、", "哦"]
    ),
    _entries("no"),
    st.sampled_from([", ", "! ", " - ", "... ", "，"]),
    _entries("retractions"),
    _END,
)
def test_a_self_correction_never_approves(
    approval: tuple[str, str],
    interjection: str,
    no: tuple[str, str],
    sep: str,
    wait: tuple[str, str],
    end: str,
) -> None:
    # The correction may come in another language than the approval.
    text = f"{approval[1]}. {interjection}{no[1]}{sep}{wait[1]}{end}"
    assert not _approves(text)
    assert not _approves(f"{approval[1]}. {interjection}{no[1]}{end}")
