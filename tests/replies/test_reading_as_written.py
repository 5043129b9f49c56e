"""Replies as lawyers write them, in their own languages, read as a careful assistant would.

Each case is one rule of the reading: a condition on someone else's step, a yes that is
another word next door, the action's verb in any language, a number or name the ask does
not hold, natural approvals, declines and rejections, what follows an approval (remarks,
reasons, the condition's other branch), greetings and preambles, and an ask in the
lawyer's own language.
"""

from __future__ import annotations

import pytest

from gateway import replies
from gateway.replies.actions import action_of, asks_to_act
from gateway.replies.kinds import Ask

PAY = Ask(
    "May I pay the expert's invoice of EUR 4,200.00?", "Pay the expert's invoice of EUR 4,200.00"
)
SEND = Ask("May I send the signed letter to Borealis AG?", "Send the signed letter to Borealis AG")
PUBLISH = Ask("Should I publish the press release today?", "Publish the press release today")
FILE_ON_15TH = Ask(
    "Should I file the statement of defence on Friday the 15th?",
    "File the statement of defence on Friday the 15th",
)


def read(text: str, ask: Ask) -> replies.Reading:
    new_text = replies.extract_reply(text, None).new_text
    return replies.read_reply(replies.read_text(new_text, None), ask)


@pytest.mark.parametrize(
    "text",
    [
        "Ja, aber erst wenn die Bank die Zahlung bestätigt hat.",
        "Sì, ma solo dopo la firma del notaio.",
        "Ja, men först när köparen har betalat handpenningen.",
        "Tak, ale dopiero po podpisaniu protokołu.",
        "Ja, maar pas nadat de accountant de factuur heeft gecontroleerd.",
    ],
)
def test_only_after_someone_elses_step_is_a_condition(text: str) -> None:
    reading = read(text, PAY)
    assert reading.kind == "conditional_approval"
    assert len(reading.conditions) == 1


@pytest.mark.parametrize(
    "text", ["Ja, aber erst nach meinem Urlaub.", "Ja, men först när jag har läst den."]
)
def test_only_after_the_lawyers_own_step_holds_it_back(text: str) -> None:
    assert read(text, PAY).kind == "reply"


def test_a_polish_tak_is_yes_only_where_the_text_is_surely_polish() -> None:
    assert read("Tak, proszę zapłacić fakturę.", PAY).kind == "approval"
    assert read("Tak.", PAY).kind != "approval"  # Danish "thanks" as much as Polish "yes"
    assert read("Tak for det.", PAY).kind != "approval"


def test_the_proposed_action_is_found_in_the_askers_language() -> None:
    polish = Ask("Czy mogę zapłacić fakturę biegłego?", "Zapłacić fakturę biegłego")
    dutch = Ask("Mag ik de factuur betalen?", "De factuur van de deurwaarder betalen")
    assert action_of(polish) == "pay"
    assert action_of(dutch) == "pay"
    assert read("Sí, págala.", Ask("¿Puedo pagar la factura?", "Pagar la factura")).kind == (
        "approval"
    )


def test_another_date_after_a_bare_but_decides_nothing() -> None:
    assert read("Ja, maar dien het op de 12e in.", FILE_ON_15TH).kind == "reply"


def test_a_lower_amount_after_a_limit_word_is_the_approvals_limit() -> None:
    reading = read("OK, but only up to EUR 3,000.", PAY)
    assert reading.kind == "conditional_approval"
    assert reading.conditions == ("but only up to EUR 3,000.",)


def test_another_party_named_decides_nothing() -> None:
    assert read("Yes, send it to Borealis Holding.", SEND).kind == "reply"
    assert read("Yes, send it to Borealis AG.", SEND).kind == "approval"


@pytest.mark.parametrize(
    ("text", "ask"),
    [
        ("Nessun problema, rinnova pure.", Ask("Can I renew it?", "Renew the subscription")),
        ("No hay problema, págala.", PAY),
        ("Spricht nichts dagegen.", PAY),
        ("Nie widzę przeszkód.", PAY),
        ("問題ありません、支払ってください。", PAY),
        ("Confermo, inviala.", Ask("Please confirm I can send the letter.", "Send the letter")),
        ("Vai pure, grazie", PAY),
    ],
)
def test_natural_approvals_approve(text: str, ask: Ask) -> None:
    reading = read(text, ask)
    assert (reading.kind, reading.conditions) == ("approval", ())


def test_the_closing_above_a_signature_block_is_cut_with_it() -> None:
    text = (
        "Aprobado.\n\nUn saludo,\n\nJavier Molina Sanz\nAbogado\n"
        "Calle de Serrano 45, 28001 Madrid\nT. +34 91 123 45 67"
    )
    reading = read(text, PAY)
    assert (reading.kind, reading.conditions) == ("approval", ())
    assert "Un saludo," in reading.cut


@pytest.mark.parametrize(
    "text",
    [
        "Анна, добрый день!\n\nДа, оплачивайте.",
        "Sanne,\nJa, betaal maar.",
        "Thanks for the quick turnaround. Go ahead and pay it.",
        "I've read it. Approved.",
    ],
)
def test_a_greeting_or_preamble_before_the_answer_is_set_aside(text: str) -> None:
    reading = read(text, PAY)
    assert (reading.kind, reading.conditions) == ("approval", ())


def test_a_decision_word_is_never_taken_for_a_greeting() -> None:
    reading = read("Approved,\nprovided the invoice is checked first.", PAY)
    assert reading.kind == "conditional_approval"


def test_an_opening_sentence_that_says_something_else_is_not_set_aside() -> None:
    assert read("The client changed course. Approved.", PAY).kind == "reply"


@pytest.mark.parametrize(
    "text",
    [
        "Approved. They did excellent work on the last file.",
        "Godkendt. Han er den bedste vi kan få.",
        "同意。他们对这个行业很熟悉。",
        "Ja.\n\nSorry für die späte Rückmeldung, war den ganzen Tag im Termin.",
        "Ja, betaal maar.",
        "Ja, bare betal den.",
    ],
)
def test_remarks_and_reasons_after_an_approval_are_not_conditions(text: str) -> None:
    reading = read(text, PAY)
    assert (reading.kind, reading.conditions) == ("approval", ())


def test_an_obligation_after_an_approval_is_a_condition() -> None:
    reading = read("Approved. He must countersign it.", PAY)
    assert reading.kind == "conditional_approval"


def test_a_conditions_other_branch_is_part_of_it() -> None:
    reading = read(
        "Du må gerne betale, forudsat at fakturaen er attesteret. Ellers venter vi.", PAY
    )
    assert reading.kind == "conditional_approval"
    assert reading.conditions[-1] == "Ellers venter vi."


def test_a_step_that_waits_for_the_lawyer_still_holds_a_conditional_approval_back() -> None:
    reading = read("Approved, provided the cap holds. Call me first though.", PAY)
    assert reading.kind == "reply"


@pytest.mark.parametrize(
    "text",
    [
        "Da bin ich der Falsche – fragen Sie Frau Roth.",
        "Non è materia mia, scrivi al reparto fiscale.",
        "Det er ikke mit bord – tag den med Camilla.",
        "Jag har en jävssituation här. Hör med Karin.",
    ],
)
def test_natural_declines_decline(text: str) -> None:
    assert read(text, PAY).kind == "decline"


@pytest.mark.parametrize(
    ("text", "ask"),
    [
        ("Surtout pas !", PUBLISH),
        ("Nepublikujte to.", PUBLISH),
        ("Per ora non pubblicare nulla.", PUBLISH),
        ("Not yet.", SEND),
        ("Todavía no.", SEND),
    ],
)
def test_natural_rejections_reject(text: str, ask: Ask) -> None:
    assert read(text, ask).kind == "rejection"


def test_not_yet_to_a_question_that_is_not_whether_to_act_decides_nothing() -> None:
    ask = Ask("Has the client signed the engagement letter?", "Send the engagement letter")
    assert read("Not yet.", ask).kind == "reply"


def test_an_ask_in_the_lawyers_own_language_is_read_as_whether_to_act() -> None:
    booking = Ask("Darf ich den Notartermin für Donnerstag buchen?", "Book the notary appointment")
    assert asks_to_act(booking)
    assert read("Ja, passt so.", booking).kind == "approval"
    assert read("Nein.", booking).kind == "rejection"
    choice = Ask("Soll ich bis Montag warten oder heute buchen?", "Book the notary appointment")
    assert not asks_to_act(choice)
    assert read("Ja.", choice).kind != "approval"


def test_the_fourth_trials_replies_are_read_as_a_careful_reader_would() -> None:
    lease = Ask("Darf ich den Mietvertrag für die Büroflächen unterschreiben?", "Sign the lease")
    assert read("Ja, passt so.", lease).kind == "approval"
    customers = Ask("May I send the customer list to the CRM provider?", "Send the customer list")
    reading = read(
        "Genehmigt, aber nur für Namen und dienstliche E-Mail-Adressen; private Adressen bitte "
        "nicht übermitteln.",
        customers,
    )
    assert reading.kind == "conditional_approval"
    release = Ask(
        "Release payment of EUR 62,000.00 to Kraftwerk Logistics GmbH?",
        "Release payment of EUR 62,000.00 to Kraftwerk Logistics GmbH",
    )
    noted = replies.read_reply(
        replies.read_text(
            "APPROVE\n\nNotes (optional):\nonly if the amount stays under EUR 50,000.\n",
            "APPROVE [HFA-00007]",
        ),
        release,
    )
    assert noted.kind == "conditional_approval"
    assert noted.exceeds is not None and "EUR 62,000.00" in noted.exceeds


def test_a_condition_said_to_be_unmet_still_decides_nothing() -> None:
    assert read(
        "Genehmigt, sofern der AVV unterschrieben ist, was nicht der Fall ist.", PAY
    ).kind == ("reply")
