"""read_decision: the case table plus the safety rules around approval."""

from __future__ import annotations

import pytest

from gateway.replies import (
    DecisionKind,
    ReplyError,
    decide_answer,
    extract_reply,
    read_decision,
)
from tests.replies.adversarial import NDA
from tests.replies.cases import CASES, Case
from tests.replies.typed import under_approve

A, R, D, Q, C = (
    DecisionKind.APPROVAL,
    DecisionKind.REJECTION,
    DecisionKind.DECLINE,
    DecisionKind.QUESTION,
    DecisionKind.CLOSE,
)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_decision_of_case(case: Case) -> None:
    new_text = extract_reply(case.plain, case.html).new_text
    # A yes/no answers the ask: the cases' ask is whether to carry out the action.
    decision = decide_answer(read_decision(new_text, case.subject), NDA)
    assert decision.kind is case.decision
    if case.trigger is not None:
        assert decision.trigger == case.trigger


@pytest.mark.parametrize(
    ("text", "kind", "trigger"),
    [
        ("approve", A, "approve"),
        ("APPROVED.", A, "APPROVED"),
        ("Approval granted", A, "Approval granted"),
        ("reject", R, "reject"),
        ("Denied!", R, "Denied"),
        ("deny", R, "deny"),
        ("declined", D, "declined"),
        ("Question - who signs?", Q, "Question"),
        ("closed", C, "closed"),
        ("Close.", C, "Close"),
        ("genehmigt", A, "genehmigt"),
        ("Freigegeben!", A, "Freigegeben"),
        ("ablehnen", R, "ablehnen"),
        ("approuvé", A, "approuvé"),
        ("Approuve", A, "Approuve"),
        ("Accepté.", A, "Accepté"),
        ("rejeté", R, "rejeté"),
        ("aprobado", A, "aprobado"),
        ("rechazado", R, "rechazado"),
        ("goedgekeurd", A, "goedgekeurd"),
        ("afgewezen", R, "afgewezen"),
        ("Akkoord.", A, "Akkoord"),
        ("Yes", A, "Yes"),
        ("yes.", A, "yes"),
        ("Sí, adelante.", A, "Sí"),
        ("No", R, "No"),
        ("nein!", R, "nein"),
        ("Nee.", R, "Nee"),
        ("Frage: gilt das auch für Töchter?", Q, "Frage"),
    ],
)
def test_decision_words(text: str, kind: DecisionKind, trigger: str) -> None:
    decision = decide_answer(read_decision(text, None), NDA)
    assert (decision.kind, decision.trigger) == (kind, trigger)


@pytest.mark.parametrize(
    "text",
    [
        "not approved",
        "Do not approve.",
        "I cannot approve this.",
        "We can't approve it.",
        "Don't approve yet",
        "I won't approve",
        "disapprove",
        "Disapproved.",
        "unapproved",
        "nicht genehmigt",
        "Nicht freigegeben.",
        "non approuvé",
        "pas approuvé",
        "disallow",
        "no aprobado",
        "niet goedgekeurd",
        "Approved\n\nActually I do not approve clause 5.",
        "Approved. Rejected.",
        "approved and denied",
        "Approved?",
        "Approvedly",
        "approves",
        "Pre-approved",
        "Yes? No.",
        "No approval from me.",
        "Maybe. Approved later.",
        "> Approved",
        "",
        "   ",
    ],
)
def test_never_an_approval(text: str) -> None:
    assert read_decision(text, None).kind is not DecisionKind.APPROVAL


@pytest.mark.parametrize(
    ("subject", "kind"),
    [
        ("APPROVE [HFA-00042]", A),
        ("Re: APPROVE [HFA-00042]", A),
        ("AW: RE: approve [HFA-00042]", A),
        ("REJECT [HFA-00042]", R),
        ("DECLINE [HFA-00042]", D),
        ("QUESTION [HFA-00042]", Q),
        # Only the quick-reply links' keywords decide from a subject; there is no CLOSE link.
        ("CLOSE [HFA-00042]", None),
        ("Re: [HFA-00042] Legal review: approve the NDA", None),
        ("Re: [HFA-00042] Legal review: supplier contract", None),
        ("NOT APPROVED [HFA-00042]", None),
        (None, None),
        ("", None),
    ],
)
def test_subject_quick_reply(subject: str | None, kind: DecisionKind | None) -> None:
    assert read_decision("", subject).kind is kind


def test_subject_approval_vetoed_by_negated_body() -> None:
    assert read_decision("I do not approve after all.", "APPROVE [HFA-00042]").kind is None


def test_body_and_subject_agreeing() -> None:
    decision = read_decision("Approved.", "APPROVE [HFA-1]")
    assert (decision.kind, decision.trigger, decision.conditions) == (A, "Approved", ())


def test_wrong_types_raise_reply_error() -> None:
    with pytest.raises(ReplyError):
        read_decision(None, None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Approved. Rejected. I am torn.", None),
        ("Approved. We do not need the partner's approval.", None),
        ("Approved", "REJECT [HFA-00001]"),
        ("Approve - no, reject it.", None),
    ],
)
def test_conflicting_or_negated_words_are_unclear_not_absent(
    text: str, subject: str | None
) -> None:
    decision = read_decision(text, subject)
    assert decision.kind is None and decision.ambiguous


@pytest.mark.parametrize("text", ["The notice period is 30 days.", "Noted, thank you."])
def test_plain_answers_are_not_unclear(text: str) -> None:
    decision = read_decision(text, None)
    assert decision.kind is None and not decision.ambiguous


@pytest.mark.parametrize(
    "text",
    [
        # A question asks; a deferral after a decision is a hold-back, not an acknowledgement.
        "I'll look at it tomorrow, but which version is the final one?",
        "Yes, I'll look at it tomorrow.",
        # A substantive answer that mentions no later answer.
        "The cap looks fine to me; the notice period is 30 days.",
    ],
)
def test_a_deferral_never_outranks_a_question_or_a_held_back_decision(text: str) -> None:
    decision = read_decision(text, None)
    assert decision.kind is not DecisionKind.ACKNOWLEDGE


OUTLOOK_LINES = '<div class="WordSection1">{}</div>'


def _outlook(*lines: str) -> str:
    """Outlook's HTML: each typed line its own paragraph (MsoNormal, no margin)."""
    return OUTLOOK_LINES.format(
        "".join(f'<p class="MsoNormal">{line}<o:p></o:p></p>' for line in lines)
    )


@pytest.mark.parametrize(
    ("plain", "html", "stopped_by"),
    [
        ("Approved.\n\nDon't sign yet though.", None, "Don't sign yet though."),
        ("Approved.\n\nOh no, wait - not yet.", None, "Oh no, wait - not yet."),
        ("Approved,\n\nbut only after the DPA is signed.", None, "but only after the DPA"),
        ("Hi Tom,\n\nOK to sign.\n\nLet me check with Anna first.", None, "Let me check"),
        ("Approved.\n\nRejected for the Dutch entity, though.", None, "Rejected"),
        ("Genehmigt.\n\nAber bitte noch nicht unterschreiben.", None, "noch nicht"),
        (None, _outlook("Approved", "but don't sign until Finance confirms."), "don't sign"),
        (None, _outlook("Go ahead", "and send me the draft first."), "draft first"),
    ],
)
def test_a_later_paragraph_that_holds_the_approval_back_leaves_no_decision(
    plain: str | None, html: str | None, stopped_by: str
) -> None:
    # The first paragraph decides, but it is not the last word: what follows it stops it.
    decision = read_decision(extract_reply(plain, html).new_text, "Re: the NDA [HFA-00001]")
    assert decision.kind is None and decision.ambiguous
    assert decision.because is not None and stopped_by in decision.because


@pytest.mark.parametrize(
    "plain",
    [
        "Approved.\n\nThanks for the clear summary.",
        "Approved.\n\nPlease send me the signed copy afterwards.",
        "Approved.\n\nAnna",
    ],
)
def test_an_approval_followed_by_thanks_or_an_afterthought_stands(plain: str) -> None:
    assert read_decision(extract_reply(plain, None).new_text, None).kind is A


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("Approved. The cap must stay at EUR 10,000.", "The cap must stay at EUR 10,000."),
        ("Approved. Cap at EUR 50k.", "Cap at EUR 50k."),
        (
            "Approved.\nSend it to the client's legal inbox only.",
            "Send it to the client's legal inbox only.",
        ),
        ("Genehmigt. Die Haftung bleibt bei 10.000 EUR.", "Die Haftung bleibt bei 10.000 EUR."),
        ("Akkoord. De looptijd blijft twee jaar.", "De looptijd blijft twee jaar."),
        ("Approuvé. Le plafond reste à 10 000 EUR.", "Le plafond reste à 10 000 EUR."),
        ("Aprobado. El límite sigue en 10.000 EUR.", "El límite sigue en 10.000 EUR."),
        ("承認します。上限は1万ユーロのままです。", "上限は1万ユーロのままです。"),
    ],
)
def test_a_limit_in_a_sentence_after_the_approval_is_its_condition(
    text: str, condition: str
) -> None:
    # The paragraph after "Approved." is read as notes under the APPROVE link are: a
    # limit there was dropped, and the agent told of an approval without it.
    decision = decide_answer(read_decision(text, None), NDA)
    assert decision.kind is DecisionKind.APPROVAL
    assert decision.conditions == (condition,)


@pytest.mark.parametrize(
    "text",
    [
        "Approved. Don't pay the second instalment.",
        "Approved. Please don't.",
        "Approved. Not above EUR 50k.",
        "Akkoord. Niet doen.",
        "Aprobado. No firmes todavía.",
    ],
)
def test_a_negation_in_a_sentence_after_the_approval_is_no_decision(text: str) -> None:
    decision = decide_answer(read_decision(text, None), NDA)
    assert decision.kind is None, decision


@pytest.mark.parametrize(
    "text",
    ["Approved. Thanks for the quick turnaround.", "Approved. Go ahead.", "Approved. Thanks!"],
)
def test_thanks_or_agreement_after_the_approval_adds_no_condition(text: str) -> None:
    decision = decide_answer(read_decision(text, None), NDA)
    assert decision.kind is DecisionKind.APPROVAL and decision.conditions == ()


# "Approved." followed by a sentence saying it stands as it is, one per table language;
# the "no" of "No changes needed." is about the document, not the approval.
STANDS_AS_IS = [
    "Approved. No changes needed.",
    "Approved. Nothing further from me.",
    "Approved. No objections.",
    "Approved. Sorry for the delay.",
    "Genehmigt. Keine Änderungen nötig.",
    "Genehmigt. Schönes Wochenende.",
    "Approuvé. Rien à ajouter.",
    "Akkoord. Geen opmerkingen.",
    "Aprobado. Sin comentarios.",
    "Approvato. Nessuna obiezione.",
    "Aprovado. Nada a acrescentar.",
    "Godkendt. Ingen bemærkninger.",
    "Godkjent. Ingen merknader.",
    "Godkänt. Inga synpunkter.",
    "Hyväksytty. Ei huomautettavaa.",
    "Zatwierdzam. Bez uwag.",
    "Schváleno. Bez připomínek.",
    "Одобрено. Замечаний нет.",
    "Схвалено. Зауважень немає.",
    "承認します。問題ありません。",
]


@pytest.mark.parametrize("text", STANDS_AS_IS)
def test_a_sentence_saying_the_approval_stands_as_it_is_adds_nothing(text: str) -> None:
    for decision in (
        read_decision(text, None),
        under_approve(text),
    ):
        decision = decide_answer(decision, NDA)
        assert decision.kind is DecisionKind.APPROVAL and decision.conditions == (), decision


@pytest.mark.parametrize(
    "text",
    [
        "Approved. No changes needed?",  # a question
        "Approved. No changes to clause 4.",  # more words: a limit, or no decision
        "Approved. No.",
        "Одобрено. Нет.",
        "Approved. No changes needed. Don't sign yet.",
        "Not approved. No changes needed.",
    ],
)
def test_only_the_whole_sentence_stands_as_it_is(text: str) -> None:
    decision = decide_answer(read_decision(text, None), NDA)
    assert decision.kind is not DecisionKind.APPROVAL or decision.conditions, decision


def test_a_sentence_saying_it_stands_never_decides_on_its_own() -> None:
    for text in ("No changes needed.", "Nothing to add.", "Замечаний нет."):
        assert read_decision(text, None).kind is None
