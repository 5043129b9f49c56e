"""The trap families of false approvals, per language, and natural answers (table tests).

Each family holds replies written the way lawyers write them (see the ``adversarial`` package);
every one must be read as one of its ``expect`` readings, and none may approve what
the lawyer did not approve.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.replies import (
    Ask,
    Decision,
    DecisionKind,
    decide_answer,
    extract_reply,
    read_decision,
)
from gateway.replies.lexicon import LEXICON
from tests.replies.adversarial import (
    APPROVAL,
    CONDITIONAL,
    DECLINE,
    FAMILIES,
    HELD_OUT,
    LANGUAGES,
    NATURAL,
    NDA,
    REJECTION,
    Trial,
)
from tests.replies.adversarial.trial import Language
from tests.replies.typed import filled


def reading(trial: Trial) -> tuple[str | None, Decision]:
    new_text = extract_reply(trial.text, None).new_text
    decision = decide_answer(read_decision(new_text, trial.subject), trial.ask)
    if decision.kind is DecisionKind.APPROVAL:
        return ("conditional" if decision.conditions else "approval"), decision
    return (decision.kind.value if decision.kind else None), decision


_TRIALS = [trial for trials in FAMILIES.values() for trial in trials] + NATURAL + HELD_OUT


@pytest.mark.parametrize(
    "trial", _TRIALS, ids=[f"{t.family}-{t.language}-{n}" for n, t in enumerate(_TRIALS)]
)
def test_trial_is_read_as_the_lawyer_meant(trial: Trial) -> None:
    got, decision = reading(trial)
    assert got in trial.expect, decision
    if got is not None:
        # Every decision says where it came from and which words decided it.
        assert decision.read_from is not None and decision.because, decision


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_has_ten_cases_or_more(family: str) -> None:
    assert len(FAMILIES[family]) >= 10


def test_the_families_cover_every_language() -> None:
    # Families 1-6 hold ten or more replies in each language that has a table.
    for family in (
        "yes_continuation", "go_ahead_first", "holdback", "yes_no_ask", "quick_notes",
        "self_correction",
    ):  # fmt: skip
        per_language = Counter(trial.language for trial in FAMILIES[family])
        short = {code: per_language[code] for code in LEXICON.languages if per_language[code] < 10}
        assert not short, (family, short)
    # Family 7 holds ten or more over the scripts that languages share.
    cross = FAMILIES["cross_language"]
    assert len(cross) >= 10
    scripts = {"zh", "ja"}, {"ru", "uk"}, {"da", "nb", "sv", "fi"}, {"pl", "cs"}
    assert all(script & {trial.language for trial in cross} for script in scripts)
    # Natural answers of every kind in every language.
    kinds = Counter((trial.language, trial.expect) for trial in NATURAL)
    for code in LEXICON.languages:
        assert all(
            kinds[code, expect] >= 3 for expect in (APPROVAL, REJECTION, DECLINE, CONDITIONAL)
        )


def test_a_held_back_approval_says_why() -> None:
    decision = read_decision("Approved in principle, but I need to see the final version.", None)
    assert decision.kind is None and decision.ambiguous
    assert decision.because == "Approved in principle, but I need to see the final version."


def test_one_languages_word_does_not_decide_another() -> None:
    # 問題 is "question" in Chinese; 問題ありません is Japanese for "no problem".
    assert read_decision("問題ありません。", None).kind is not DecisionKind.QUESTION
    assert read_decision("请问这个合同的期限是多久？", None).kind is DecisionKind.QUESTION
    # 同意 approves in Chinese; 同意しかねます is Japanese for "I cannot agree".
    assert read_decision("同意しかねます。", None).kind is not DecisionKind.APPROVAL


def _same_language(first: str, second: str) -> st.SearchStrategy[tuple[str, str]]:
    """An entry of table key ``first`` and one of ``second``, from the same language."""
    pairs = [
        (filled(a), filled(b))
        for language in LEXICON.languages.values()
        for a in language.entries[first]
        for b in language.entries[second]
    ]
    return st.sampled_from(pairs)


_OBJECTS = st.sampled_from(["", "the draft", "das Dokument", "le contrat", "KL-443", "第9条"])
_END = st.sampled_from([".", "", "!", "\n\nThanks"])


def _approves(text: str, ask: Ask = NDA) -> bool:
    return decide_answer(read_decision(text, None), ask).kind is DecisionKind.APPROVAL


@settings(max_examples=400, deadline=None)
@given(_same_language("approve", "reject_phrases"), st.sampled_from([", ", ". ", "; "]), _END)
def test_an_approval_then_a_rejection_that_stands_alone_never_approves(
    pair: tuple[str, str], sep: str, end: str
) -> None:
    # "Akkoord, maar niet tekenen." / "承認します。署名しないでください。"
    approval, rejection = pair
    assert not _approves(f"{approval}{sep}{rejection}{end}")


def _approve_reject_until(code: str) -> st.SearchStrategy[tuple[str, str, str]]:
    entries = LEXICON.languages[code].entries
    return st.tuples(
        st.sampled_from(list(entries["approve"])),
        st.sampled_from([filled(entry) for entry in entries["reject_phrases"]]),
        st.sampled_from(list(entries["contingent"])),
    )


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(LEXICON.languages)).flatmap(_approve_reject_until), _OBJECTS, _END)
def test_an_approval_whose_action_waits_for_something_never_approves(
    said: tuple[str, str, str], what: str, end: str
) -> None:
    # "Approved, but do not sign until Finance confirms." / "Godkänt, skriv inte under om ..."
    approval, rejection, until = said
    assert not _approves(f"{approval}, {rejection} {until} {what}{end}")


@settings(max_examples=400, deadline=None)
@given(_same_language("needs_stop", "first_steps"), _OBJECTS, _END)
def test_a_go_ahead_with_a_step_first_never_approves(
    pair: tuple[str, str], step: str, end: str
) -> None:
    # "Kör på, men skicka utkastet först." / "Pokračujte, ale nejdřív ..."
    go_ahead, first = pair
    assert not _approves(f"{go_ahead}, {step} {first}{end}")
    assert not _approves(f"{go_ahead}, {first} {step}{end}")


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([lang for lang in LANGUAGES.values()]),
    st.sampled_from(["yes_continuation", "go_ahead_first", "holdback", "self_correction"]),
    st.integers(min_value=0, max_value=9),
    st.sampled_from(["Hi,\n\n", "Dear Anna,\n\n", ""]),
    st.sampled_from(["", "\n\nBest regards\nJan", "\n\n-- \nJan Novak | Partner"]),
)
def test_a_family_reply_with_a_greeting_or_signature_never_approves(
    language: Language, family: str, n: int, greeting: str, signature: str
) -> None:
    # Every family reply of 1-3 and 6 in every language, framed as mail clients frame it.
    texts = getattr(language, family)
    text = f"{greeting}{texts[n % len(texts)]}{signature}"
    new_text = extract_reply(text, None).new_text
    assert not _approves(new_text)
