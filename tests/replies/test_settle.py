"""Nothing the lawyer added to an approval is dropped.

Whatever stands beside an approval (the rest of its sentence, a later paragraph, a
postscript after the sign-off, the words after "OK," in notes under the APPROVE link)
either adds nothing (thanks, a name, "as proposed", "no changes needed") or is carried
as the approval's condition, or makes it no decision. It is never read as a bare
approval: the agent would be told to go ahead without the limit.
"""

from __future__ import annotations

import pytest

from gateway.replies import DecisionKind, decide_answer, extract_reply, read_decision
from tests.replies.adversarial import NDA
from tests.replies.typed import under_approve


def typed(text: str) -> tuple[DecisionKind | None, tuple[str, ...]]:
    decision = decide_answer(read_decision(extract_reply(text, None).new_text, None), NDA)
    return decision.kind, decision.conditions


def noted(text: str) -> tuple[DecisionKind | None, tuple[str, ...]]:
    decision = decide_answer(under_approve(text), NDA)
    return decision.kind, decision.conditions


# Each was read as a bare approval, typed or under the link, in 17 languages.
ADDED = [
    # the rest of the approval's own sentence
    "Approved for two years.",
    "Approved from Monday.",
    "Approved in part.",
    "Approved as to form.",
    "Approved the NDA with Helix Pharma.",
    "Approved minus the indemnity.",
    "Approved with my markup.",
    "Approved, hypothetically.",
    "Genehmigt ab Montag.",
    "Freigegeben für zwei Jahre.",
    "Approuvé pour deux ans.",
    "Akkoord vanaf maandag.",
    "Aprobado para el primer envío.",
    "Approvato per un anno.",
    "Aprovado quanto à forma.",
    "Godkendt for den første levering.",
    "Godkjent fra mandag.",
    "Godkänt för ett år.",
    "Hyväksytty vuodeksi.",
    "Zatwierdzam od poniedziałku.",
    "Schvaluji pro první dodávku.",
    "Согласовано на один год.",
    "Погоджено з понеділка.",
    "承認します、初回出荷分です。",
    "同意签署，期限一年。",
    # a later paragraph, a list, a postscript after the sign-off
    "Approved.\n\nCap: EUR 10,000.",
    "Approved.\n\nChanges:\n- term 2 years\n- English law",
    "Hi Tom,\n\nApproved.\n\nOnly sign for Acme GmbH, not Acme Inc.\n\nBest,\nAnna",
    "Approved.\n\nBest,\nJohn\n\nPS: only the first shipment.",
    "Genehmigt.\n\nDeckel bei 10.000 EUR.",
    "Akkoord.\n\nArtikel 7 moet eruit.",
    "Aprobado.\n\nSaludos,\nJuan\n\nPD: solo el primer envío.",
    "Согласовано.\n\nЛимит 10 000 евро.",
    "承認します。\n\n上限は1万ユーロです。",
    "同意。\n\n上限1万欧元。",
    "Approved. Earliest Monday.",
]


@pytest.mark.parametrize("text", ADDED)
def test_what_is_added_to_an_approval_is_never_dropped(text: str) -> None:
    for kind, conditions in (typed(text), noted(text)):
        assert not (kind is DecisionKind.APPROVAL and conditions == ()), (text, kind)


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("Approved for two years.", "for two years"),
        ("Genehmigt ab Montag.", "ab Montag"),
        ("Approved.\n\nCap: EUR 10,000.", "Cap: EUR 10,000."),
        ("Approved.\n\nBest,\nJohn\n\nPS: cap it at EUR 10,000.", "PS: cap it at EUR 10,000."),
    ],
)
def test_it_is_carried_as_the_approvals_condition(text: str, condition: str) -> None:
    kind, conditions = typed(text)
    assert kind is DecisionKind.APPROVAL and conditions == (condition,)


# After "OK," under the link: what follows must itself add nothing.
@pytest.mark.parametrize(
    "notes", ["OK, two years.", "Sure, from Monday.", "Agreed, kill it.", "Thanks, two years max."]
)
def test_words_after_an_agreement_in_notes_are_not_dropped(notes: str) -> None:
    kind, conditions = noted(notes)
    assert not (kind is DecisionKind.APPROVAL and conditions == ()), (notes, kind)


@pytest.mark.parametrize(
    "text",
    [
        "Approved, thanks!",
        "Approved - thanks Dana",
        "Approved as proposed.",
        "Approved, go ahead.",
        "Approved.\n\nBest regards,\nAnna",
        "Approved.\n\nThanks for the quick turnaround.",
        "Genehmigt, passt so.",
        "Det er fint med mig.",
    ],
)
def test_thanks_a_name_or_as_proposed_add_nothing(text: str) -> None:
    for kind, conditions in (typed(text), noted(text)):
        assert kind is DecisionKind.APPROVAL and conditions == (), (text, kind, conditions)


@pytest.mark.parametrize(
    "notes", ["Fine as proposed.", "Sounds good to me.", "Thanks for the quick turnaround."]
)
def test_agreement_or_thanks_in_notes_add_nothing(notes: str) -> None:
    assert noted(notes) == (DecisionKind.APPROVAL, ())


def test_a_postscript_after_the_sign_off_is_part_of_the_reply() -> None:
    reply = extract_reply("Approved.\n\nBest,\nJohn\n\nPS: only the first shipment.\n", None)
    assert reply.new_text == "Approved.\n\nPS: only the first shipment."
    signed = extract_reply("Approved.\n\nKind regards\nAnna Keller\nPartner\n", None)
    assert signed.new_text == "Approved."
