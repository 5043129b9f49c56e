"""Property tests: in no language does a negated or questioned approval approve."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gateway.replies import DecisionKind, read_decision
from gateway.replies.lexicon import LEXICON
from gateway.replies.negation import REACH_BEFORE
from gateway.replies.words import words

_LANGUAGES = sorted(LEXICON.languages.values(), key=lambda language: language.code)


def _entries(key: str) -> list[tuple[str, str]]:
    return [(lang.code, entry) for lang in _LANGUAGES for entry in lang.entries[key]]


_APPROVALS = st.sampled_from(_entries("approve") + _entries("yes"))
_GLOBAL_NEGATORS = [entry for lang in _LANGUAGES for entry in lang.entries["negators"]]
_NEGATORS = st.sampled_from(_GLOBAL_NEGATORS)


def _with_negator(approval: tuple[str, str]) -> st.SearchStrategy[tuple[tuple[str, str], str]]:
    """An approval and a negator that negates it: any language's, or its own local one."""
    local = list(LEXICON.languages[approval[0]].entries["local_negators"])
    return st.tuples(st.just(approval), st.sampled_from(_GLOBAL_NEGATORS + local))


_NEGATED = _APPROVALS.flatmap(_with_negator)
# Neutral words (no punctuation, so they never end the sentence), from several languages.
_FILLER = st.lists(
    st.sampled_from(
        ["we", "can", "the", "contract", "das", "wir", "le", "contrat", "el", "het", "this",
         "il", "o", "det", "to", "это", "dies", "ten", "tämä", "这个", "これ", "yet"]
    ),
    max_size=3,
).map(" ".join)  # fmt: skip
_PUNCT = st.sampled_from(["", ".", "!", ",", " -", ":"])
_QUESTION_MARK = st.sampled_from(["?", " ?", "？", "??", "?!"])


def _not_approval(text: str, subject: str | None = None) -> bool:
    return read_decision(text, subject).kind is not DecisionKind.APPROVAL


@settings(max_examples=400, deadline=None)
@given(_NEGATED, _FILLER, _PUNCT)
def test_negator_before_an_approval_never_approves(
    negated: tuple[tuple[str, str], str], filler: str, punct: str
) -> None:
    approval, negator = negated
    assume(len(words(filler)) < REACH_BEFORE)  # a negation reaches this many words
    text = f"{negator} {filler} {approval[1]}{punct}"
    assert _not_approval(text)
    # Nor does a quick-reply subject make it one.
    assert _not_approval(text, "APPROVE [HFA-00001]")


@settings(max_examples=400, deadline=None)
@given(_NEGATED, _FILLER)
def test_negator_after_an_approval_in_the_same_sentence_never_approves(
    negated: tuple[tuple[str, str], str], filler: str
) -> None:
    approval, negator = negated
    # Within reach: at most two words between ("Ich genehmige das nicht").
    between = filler.split()[:1]
    text = " ".join([approval[1], *between, negator]) + "."
    assert _not_approval(text)


@settings(max_examples=400, deadline=None)
@given(_APPROVALS, _FILLER, _QUESTION_MARK, st.sampled_from(["", " Yes.", " Approved.", "\nOK"]))
def test_a_questioned_approval_never_approves(
    approval: tuple[str, str], filler: str, mark: str, tail: str
) -> None:
    assert _not_approval(f"{approval[1]} {filler}{mark}{tail}")


@settings(max_examples=300, deadline=None)
@given(_APPROVALS, _NEGATED, _FILLER)
def test_a_negated_approval_later_in_the_text_vetoes(
    approval: tuple[str, str], negated: tuple[tuple[str, str], str], filler: str
) -> None:
    later, negator = negated
    assume(len(words(filler)) < REACH_BEFORE)
    assert _not_approval(f"{approval[1]}.\n\n{negator} {filler} {later[1]}.")


@settings(max_examples=300, deadline=None)
@given(_APPROVALS, st.sampled_from(_entries("retractions")))
def test_a_retracted_approval_never_approves(
    approval: tuple[str, str], retraction: tuple[str, str]
) -> None:
    # A "*" stands for the words inside a split verb ("ziehe * zurück"): one word here.
    assert _not_approval(f"{approval[1]}. {retraction[1].replace('*', 'it')}.")
