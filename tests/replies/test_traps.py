"""The traps around a decision: questions, unmet conditions, retractions, conditions."""

from __future__ import annotations

import pytest

from gateway.replies import DecisionKind, decide_answer, extract_reply, read_decision
from tests.replies.adversarial import NDA

A, Q = DecisionKind.APPROVAL, DecisionKind.QUESTION


@pytest.mark.parametrize(
    "text",
    [
        "Approved? I thought we had said no.",
        "Approve the NDA as it stands?",
        "Approved by whom?",
        "Approve it, or wait for the board?",
        "Genehmigt? Wer hat das gesagt?",
        "Approuvé par qui ?",
        "¿Aprobado por quién?",
        "Godkänt av vem?",
        "承認しますか？",
        "批准了吗？",
        "Одобрено кем?",
        "Yes? No.",
        "Approved\n\n> Who approved it?",  # the question is quoted: still only the answer counts
    ],
)
def test_a_first_sentence_that_asks_decides_nothing(text: str) -> None:
    decision = read_decision(text, None)
    if text.startswith("Approved\n\n>"):
        assert decision.kind is A
    else:
        assert decision.kind is not A


@pytest.mark.parametrize(
    "text",
    [
        "Approved if the supplier has signed, which they have not.",
        "Approved provided the DPA is signed, but it is not yet.",
        "Approved once the board agrees, which it hasn't.",
        "Approve if the cap were raised; it isn't.",
        "Genehmigt, sofern der AVV vorliegt, was nicht der Fall ist.",
        "Approuvé si le fournisseur a signé, ce qui n'est pas le cas.",
        "Aprobado si el proveedor ha firmado, lo cual no ha hecho.",
        "Goedgekeurd als de leverancier heeft getekend, wat niet zo is.",
        "Godkänt om leverantören har skrivit under, vilket de inte har.",
        "Одобрено, если поставщик подписал, чего он не сделал.",
    ],
)
def test_an_unmet_condition_in_the_same_sentence_decides_nothing(text: str) -> None:
    decision = read_decision(text, None)
    assert (decision.kind, decision.ambiguous) == (None, True)


@pytest.mark.parametrize(
    "text",
    [
        "Approved - scratch that, I need to check clause 9.",
        "Approved. Actually no, hold on.",
        "Approved. On second thought, wait for my call.",
        "Approve. Sorry, ignore that.",
        "Genehmigt. Moment, doch nicht.",
        "Approuvé. Réflexion faite, attendez.",
        "Aprobado. Me retracto.",
        "Goedgekeurd. Laat maar.",
        "承認します。やはり撤回します。",
        "同意。撤回。",
    ],
)
def test_a_retraction_decides_nothing(text: str) -> None:
    decision = read_decision(text, None)
    assert decision.kind is None and decision.ambiguous


@pytest.mark.parametrize(
    ("text", "conditions"),
    [
        (
            "Approved, subject to:\n- cap mutual at EUR 1m\n- 9.3 deleted\n- DPA replaces 8.2/8.3",
            ("cap mutual at EUR 1m", "9.3 deleted", "DPA replaces 8.2/8.3"),
        ),
        (
            "Approved with conditions:\n1. Delete clause 4.2\n2. Add a GDPR annex",
            ("Delete clause 4.2", "Add a GDPR annex"),
        ),
        (
            "Approved:\n- only the EU entity signs\n- no auto-renewal",
            ("only the EU entity signs", "no auto-renewal"),
        ),
        ("Approved, subject to:\n\n- a\n- b\n\nThanks", ("a", "b")),
        (
            "Approved, provided that the cap is raised to EUR 1m.",
            ("provided that the cap is raised to EUR 1m.",),
        ),
        ("Approved subject to the board's consent.", ("subject to the board's consent.",)),
        ("Approved, but only for the EU entity.", ("but only for the EU entity.",)),
        (
            "Approved, but do not send it to personal addresses.",
            ("but do not send it to personal addresses.",),
        ),
        (
            "genehmigt, aber nur an die dienstlichen Adressen",
            ("aber nur an die dienstlichen Adressen",),
        ),
        (
            "Genehmigt unter der Bedingung, dass Klausel 5 entfällt.",
            ("unter der Bedingung, dass Klausel 5 entfällt.",),
        ),
        (
            "Approuvé sous réserve de la signature du DPA.",
            ("sous réserve de la signature du DPA.",),
        ),
        (
            "Aprobado, siempre que se elimine la cláusula 7.",
            ("siempre que se elimine la cláusula 7.",),
        ),
        (
            "Approvato, a condizione che il DPA sia firmato.",
            ("a condizione che il DPA sia firmato.",),
        ),
        (
            "Aprovado, desde que a cláusula 7 seja removida.",
            ("desde que a cláusula 7 seja removida.",),
        ),
        (
            "Godkänt, under förutsättning att klausul 7 stryks.",
            ("under förutsättning att klausul 7 stryks.",),
        ),
        (
            "Zatwierdzam pod warunkiem usunięcia klauzuli 7.",
            ("pod warunkiem usunięcia klauzuli 7.",),
        ),
        ("Согласовано при условии удаления пункта 7.", ("при условии удаления пункта 7.",)),
        ("承認します。ただし、第7条は削除してください。", ("ただし、第7条は削除してください。",)),
        ("同意，但是请删除第七条。", ("但是请删除第七条。",)),
        ("Approved. Conditions: the cap must be EUR 1m.", ("Conditions: the cap must be EUR 1m.",)),
    ],
)
def test_an_approval_with_conditions_carries_them(text: str, conditions: tuple[str, ...]) -> None:
    # "同意，但是..." opens with a yes: it approves where the ask is whether to act.
    decision = decide_answer(read_decision(text, None), NDA)
    assert decision.kind is A
    assert decision.conditions == conditions


@pytest.mark.parametrize(
    "text",
    ["Approved.", "Approved. Thanks for the quick turnaround.", "Yes.", "I approve.", "Genehmigt."],
)
def test_a_bare_approval_has_no_conditions(text: str) -> None:
    decision = decide_answer(read_decision(text, None), NDA)
    assert (decision.kind, decision.conditions, decision.ambiguous) == (A, (), False)


def test_conditions_survive_signature_and_quote() -> None:
    body = (
        "Approved, subject to:\n- the cap is raised\n- clause 7 is deleted\n\nBest regards,\n"
        "Jane Smith\n\nOn Fri, Nov 28, 2026 at 10:12 AM HFA <review@hfa.test> wrote:\n> APPROVE\n"
    )
    new_text = extract_reply(body, None).new_text
    decision = read_decision(new_text, None)
    assert decision.kind is A
    assert decision.conditions == ("the cap is raised", "clause 7 is deleted")


@pytest.mark.parametrize(
    "text",
    [
        "Before I can say anything useful: who is going to sign?",
        "Who signs for the supplier? Then I can answer.",
        "Hi,\n\nis the DPA attached?\n\nThanks",
        "Wer unterschreibt?",
        "Qui signe ?",
        "谁签字？",
        "誰が署名しますか？",
    ],
)
def test_a_question_without_the_keyword_is_a_question(text: str) -> None:
    assert read_decision(extract_reply(text, None).new_text, None).kind is Q


def test_a_rejection_with_a_later_question_keeps_the_rejection() -> None:
    assert (
        read_decision("Rejected. Why was this filed at all?", None).kind is DecisionKind.REJECTION
    )


def test_an_approval_that_asks_in_the_same_paragraph_decides_nothing() -> None:
    # The approval is not the last word yet: the lawyer is still asking.
    decision = read_decision("Approved. Can you send me the signed copy?", None)
    assert decision.kind is None and decision.ambiguous
    assert decision.because == "Can you send me the signed copy?"
    # A question in a later paragraph is one more thing to answer: not a veto, and never
    # dropped either, it is carried with the approval.
    later = read_decision("Approved.\n\nCan you send me the signed copy?", None)
    assert later.kind is A and later.conditions == ("Can you send me the signed copy?",)


def test_a_quick_reply_subject_over_a_question_is_unclear() -> None:
    decision = read_decision("Who signs?", "APPROVE [HFA-00001]")
    assert decision.kind is None and decision.ambiguous


@pytest.mark.parametrize(
    "text",
    [
        "D'accord, je regarde demain.",
        "Accord de confidentialité ci-joint.",
        "Agree with Tom that this needs more work.",
        "Agreed that we need more time; I will look tomorrow.",
        "Proceed with the research and send me a summary?",
        "Accepted your calendar invite, let's discuss on Monday.",
        "Cleared my calendar, will review tomorrow.",
        "Принято, посмотрю завтра.",
        "De acuerdo, lo reviso mañana.",
        "Conforme a lo hablado, adjunto el borrador.",
        "Einverstanden, dass es länger dauert; ich melde mich.",
        "了承しました。確認します。",
        "I orden, jeg kigger på det i morgen.",
        "Tak.",
    ],
)
def test_everyday_ok_and_noted_words_do_not_approve(text: str) -> None:
    assert read_decision(text, None).kind is not A
