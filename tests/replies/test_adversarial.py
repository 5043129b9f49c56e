"""The trap families of false approvals, per language, and natural answers (table tests).

Each family holds replies written the way lawyers write them (see adversarial.py);
every one must be read as one of its ``expect`` readings, and none may approve what
the lawyer did not approve.
"""

from __future__ import annotations

from collections import Counter

import pytest

from gateway.replies import Decision, DecisionKind, decide_answer, extract_reply, read_decision
from tests.replies.adversarial import FAMILIES, HELD_OUT, NATURAL, Trial


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


def test_the_families_cover_the_main_languages() -> None:
    wanted = {"en", "de", "fr", "es", "it", "nl", "pl", "pt", "ja", "zh"}
    for family in ("yes_continuation", "go_ahead_first", "holdback", "self_correction"):
        assert wanted <= {trial.language for trial in FAMILIES[family]}, family
    per_language = Counter(trial.language for trial in FAMILIES["yes_continuation"])
    assert all(per_language[language] >= 10 for language in wanted)
    assert wanted <= {trial.language for trial in NATURAL}


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
