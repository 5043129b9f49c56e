"""Decisions in every language of the lexicon: table-driven, per language."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.replies import Decision, DecisionKind, decide_answer, read_decision
from gateway.replies.lexicon import LANGUAGES, LEXICON
from gateway.replies.phrases import find, own_index
from gateway.replies.words import words
from tests.replies.adversarial import NDA
from tests.replies.lexicon_cases import (
    CASES,
    DEFERRAL,
    FIRST_STEP,
    FIRST_STEP_IN_PROVISO,
    HELD_BACK,
    PROVISIONAL,
    TURNED_AROUND,
)
from tests.replies.typed import under_approve

_EXPECTED = {
    "approval": DecisionKind.APPROVAL,
    "rejection": DecisionKind.REJECTION,
    "question": DecisionKind.QUESTION,
}
_TABLE = [
    pytest.param(language, category, text, id=f"{language}-{category}-{index}")
    for language, categories in CASES.items()
    for category, texts in categories.items()
    for index, text in enumerate(texts)
]


@pytest.mark.parametrize(("language", "category", "text"), _TABLE)
def test_reply_is_read_right(language: str, category: str, text: str) -> None:
    # A yes/no answers the ask: here, whether to sign (so "Yes." approves signing).
    decision = decide_answer(read_decision(text, None), NDA)
    if category == "negation":
        assert decision.kind is not DecisionKind.APPROVAL, decision
    else:
        assert decision.kind is _EXPECTED[category], decision


_APPROVE_LINK = ("APPROVE [HFA-00027]", "APPROVE\n\nNotes (optional):\n")


def _cases(name: str, table: dict[str, list[str]]) -> list[Any]:
    """One parameter per reply of ``table``, named by its language, ``name`` and place."""
    return [
        pytest.param(text, id=f"{language}-{name}-{index}")
        for language, texts in table.items()
        for index, text in enumerate(texts)
    ]


def _both_ways(text: str) -> tuple[Decision, Decision]:
    """``text`` read as typed (against the ask to sign) and as notes under a one-click
    APPROVE."""
    subject, prompt = _APPROVE_LINK
    return decide_answer(read_decision(text, None), NDA), read_decision(
        f"{prompt}{text}\n", subject
    )


_HELD_BACK = _cases("held_back", HELD_BACK) + _cases("provisional", PROVISIONAL)


@pytest.mark.parametrize("text", _HELD_BACK)
def test_an_approval_with_the_action_held_back_decides_nothing(text: str) -> None:
    # "Approuvé ; le reste attend l'avoir", "de rest wacht", "其余部分暂缓", "Approved for
    # the time being": a hold-back in any person or tense, or an approval given only for
    # now, typed or typed under a one-click APPROVE, is no decision.
    typed, noted = _both_ways(text)
    assert typed.kind is None and noted.kind is None, (typed, noted)


_FIRST_STEP = _cases("first_step", FIRST_STEP)


@pytest.mark.parametrize("text", _FIRST_STEP)
def test_an_approval_with_another_step_first_decides_nothing(text: str) -> None:
    # "send me the redline prior to signing", "lassen Sie die AVV zuvor unterschreiben",
    # "签署前请把草稿发给我": whatever word says "first", typed or typed under a one-click
    # APPROVE, the go-ahead is for the step, not the action: no decision.
    typed, noted = _both_ways(text)
    assert typed.kind is None and noted.kind is None, (typed, noted)


# Languages read with their kin share their first steps: a proviso in either language
# keeps the step inside it ("перед" is a Ukrainian first step, "при условии что" a Russian
# proviso; "før" is both Danish and Norwegian).
KIN_PROVISOS = [
    "Одобряю, при условии что договор будет подписан перед оплатой.",
    "Погоджую за умови, що договір буде підписано перед оплатою.",
    "Godkendt, forudsat at databehandleraftalen er underskrevet før betalingen.",
    "Godkjent, forutsatt at avtalen er signert før betalingen.",
]
_FIRST_STEP_IN_PROVISO = _cases("first_step_in_proviso", FIRST_STEP_IN_PROVISO) + KIN_PROVISOS


@pytest.mark.parametrize("text", _FIRST_STEP_IN_PROVISO)
def test_a_first_step_inside_a_proviso_is_part_of_the_condition(text: str) -> None:
    # "provided the DPA is signed prior to payment": the step is what the approval
    # depends on, so it stays an approval with conditions, typed and under APPROVE, in
    # the proviso's language or its kin's.
    typed, noted = _both_ways(text)
    assert typed.kind is DecisionKind.APPROVAL and typed.conditions, typed
    assert noted.kind is DecisionKind.APPROVAL and noted.conditions, noted


# An approval called off by a sentence of one word, in any language.
CALLED_OFF = [
    "Approved. Cancelled.",
    "Approved. Stop.",
    "Genehmigt. Storniert.",
    "Approuvé. Annulé.",
    "Aprobado. Cancelado.",
    "Approvato. Annullato.",
    "Goedgekeurd. Geannuleerd.",
    "Одобряю. Отменено.",
    "承認します。キャンセル。",
]
# The same words in a sentence of their own are an instruction, not a retraction.
NOT_CALLED_OFF = ["Approved. The old order is cancelled.", "Approved. Stop the old order."]


@pytest.mark.parametrize("text", CALLED_OFF)
def test_an_approval_called_off_by_a_word_standing_alone_decides_nothing(text: str) -> None:
    typed, noted = _both_ways(text)
    assert typed.kind is None and noted.kind is None, (typed, noted)


@pytest.mark.parametrize("text", NOT_CALLED_OFF)
def test_the_same_word_inside_a_sentence_does_not_call_it_off(text: str) -> None:
    assert decide_answer(read_decision(text, None), NDA).kind is DecisionKind.APPROVAL


_DEFERRAL = _cases("deferral", DEFERRAL)


@pytest.mark.parametrize("text", _DEFERRAL)
def test_a_promise_to_answer_later_is_read_not_answered(text: str) -> None:
    # "Je te reviens demain", "Ti rispondo domani", "我晚点回你": I'M ON IT, never an answer.
    assert read_decision(text, None).kind is DecisionKind.ACKNOWLEDGE


# Italian "prima" closing the step it puts first; the same word is Dutch "great".
CLOSING_FIRST = [
    "Approvato, mandami la bozza prima.",
    "Approvato, ma mandami la bozza prima.",
    "Ok, procedi. Però avvisami prima.",
    "Va bene, procedi, ma chiama il fornitore prima!",
]
PRIMA_AGREES = ["Akkoord, prima.", "Akkoord, dat is prima.", "Akkoord, alles prima.", "Ja, prima."]


@pytest.mark.parametrize("text", CLOSING_FIRST)
def test_a_first_that_closes_its_step_holds_the_approval_back(text: str) -> None:
    # "Approved, send me the draft first.": no decision, typed and under APPROVE.
    typed, noted = _both_ways(text)
    assert typed.kind is None and noted.kind is None, (typed, noted)


@pytest.mark.parametrize("text", PRIMA_AGREES)
def test_the_same_word_agreeing_in_another_language_still_approves(text: str) -> None:
    typed, noted = _both_ways(text)
    assert typed.kind is DecisionKind.APPROVAL, typed
    assert noted.kind is DecisionKind.APPROVAL, noted


_TURNED_AROUND = _cases("turned_around", TURNED_AROUND)


@pytest.mark.parametrize("text", _TURNED_AROUND)
def test_an_approval_negated_or_taken_back_never_approves(text: str) -> None:
    # "Approval refused", "Genehmigung verweigert", "承認しかねる"; "Approved. Changed my
    # mind.", "Genehmigt. Kommando zurück.": typed, no approval (a rejection where the
    # reader gives one); typed under a one-click APPROVE, no decision.
    typed, noted = _both_ways(text)
    assert typed.kind in (None, DecisionKind.REJECTION), typed
    assert noted.kind is None, noted


def test_every_language_has_ten_cases_of_each_kind() -> None:
    assert set(CASES) == set(LANGUAGES)
    assert set(HELD_BACK) == set(LANGUAGES) == set(PROVISIONAL)
    assert set(FIRST_STEP) == set(LANGUAGES) == set(TURNED_AROUND)
    assert len(LANGUAGES) >= 16
    for language, categories in CASES.items():
        for category in ("approval", "rejection", "negation", "question"):
            assert len(categories[category]) >= 10, (language, category)


def test_no_approval_word_is_a_negation_or_non_answer_elsewhere() -> None:
    """A contributor cannot make one language's "no" another's approval."""
    refusing = {
        phrase
        for language in LEXICON.languages.values()
        for key in ("reject", "decline", "no", "not_answers")
        for phrase in language.phrases(key)
    }
    for language in LEXICON.languages.values():
        for phrase in language.phrases("approve") + language.phrases("yes"):
            assert phrase not in refusing, (language.code, phrase)
            exempt = any(
                phrase[i : i + len(n)] == n
                for n in LEXICON.not_negating
                for i in range(len(phrase))
            )
            assert exempt or not any(word in LEXICON.negators for word in phrase), (
                language.code,
                phrase,
            )


def test_yes_that_is_thanks_elsewhere_never_decides() -> None:
    assert read_decision("Tak.", None).kind is None  # Danish thanks, Polish yes
    assert read_decision("Так.", None).kind is None  # Ukrainian yes, Russian "so"


def _approving() -> set[tuple[str, ...]]:
    """Every phrase of any language that approves, agrees or says yes."""
    return {
        phrase
        for language in LEXICON.languages.values()
        for key in ("approve", "approve_phrases", "agreement", "yes")
        for phrase in language.phrases(key)
    }


def test_no_hold_back_is_another_languages_approval() -> None:
    """Hold-backs are read in every language a sentence may be in: one that approves or
    agrees in another language (Italian "prima", Dutch "great") would stop real approvals."""
    approving = _approving()
    for language in LEXICON.languages.values():
        for key in ("holdbacks", "first_steps"):
            for phrase in language.phrases(key):
                assert phrase not in approving, (language.code, key, phrase)


def test_no_retraction_or_negator_is_another_languages_approval() -> None:
    """Retractions and negators stop an approval in every language: one that approves or
    agrees in another language would stop that language's real approvals."""
    approving = _approving()
    for language in LEXICON.languages.values():
        for key in ("retractions", "lone_retractions", "negators"):
            for phrase in language.phrases(key):
                assert phrase not in approving, (language.code, key, phrase)


def test_every_language_has_the_natural_answer_keys() -> None:
    for language in LEXICON.languages.values():
        for key in (
            "approve_phrases",
            "reject_phrases",
            "decline_phrases",
            "holdbacks",
            "courtesies",
            "as_is",
        ):
            assert language.entries[key], (language.code, key)


def test_every_sentence_that_stands_as_is_lets_the_approval_stand_unchanged() -> None:
    """Typed under the APPROVE link, each ``as_is`` entry leaves a bare approval: no
    condition ("No changes needed." is not a limit) and no veto (its "no" negates nothing).
    On its own it decides nothing, or approves where it is also an approval of its table
    ("No objection.", "Nulla osta.")."""
    for language in LEXICON.languages.values():
        for entry in language.entries["as_is"]:
            decision = decide_answer(under_approve(f"{entry.capitalize()}."), NDA)
            assert decision.kind is DecisionKind.APPROVAL, (language.code, entry, decision)
            assert decision.conditions == (), (language.code, entry, decision)
            alone = read_decision(entry, None)
            assert alone.kind is None or (
                alone.kind is DecisionKind.APPROVAL
                and (
                    entry in language.entries["approve"]
                    or find(words(entry), own_index(language.code, "approve_phrases")) is not None
                )
            ), (language.code, entry, alone)


# Swedish "ni" (you) is "nor" in French and Spanish: negators are read in every language,
# so these two err towards no decision.
_APPROVAL_NOT_READ_IN_NOTES = {("sv", "ni kan gå vidare"), ("sv", "ni kan skriva under")}


def test_every_approval_typed_under_the_approve_link_is_a_bare_approval() -> None:
    """The lawyer taps APPROVE and types an approval of their own language as the notes
    ("No objections from my side.", "Нет возражений."): nothing there limits or vetoes it."""
    missed = []
    for language in LEXICON.languages.values():
        for key in ("approve", "approve_phrases", "agreement"):
            for entry in language.entries[key]:
                if "*" in entry or (language.code, entry) in _APPROVAL_NOT_READ_IN_NOTES:
                    continue
                stop = "。" if language.code in ("ja", "zh") else "."
                decision = under_approve(f"{entry[:1].upper()}{entry[1:]}{stop}")
                if decision.kind is not DecisionKind.APPROVAL or decision.conditions:
                    missed.append((language.code, entry, decision.kind, decision.conditions))
    assert missed == []
