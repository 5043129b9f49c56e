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
from gateway.replies.kinds import Ask
from tests.replies.asks import FILE_ON_15TH, PAY, SEND, read


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


def test_a_step_that_waits_for_the_lawyer_still_holds_a_conditional_approval_back() -> None:
    reading = read("Approved, provided the cap holds. Call me first though.", PAY)
    assert reading.kind == "reply"


def test_not_yet_to_a_question_that_is_not_whether_to_act_decides_nothing() -> None:
    ask = Ask("Has the client signed the engagement letter?", "Send the engagement letter")
    assert read("Not yet.", ask).kind == "reply"


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


def test_the_answer_links_keyword_typed_after_a_preamble_decides() -> None:
    refund = Ask("May I refund the customer EUR 300?", "Refund EUR 300 to the customer")
    said = "Update: spoke with the client, they agreed. APPROVE the refund."
    assert read(said, refund).kind == "approval"
    assert read("Update: the client refused. APPROVE.", refund).kind == "reply"
    assert read("If the client agrees, APPROVE.", refund).kind != "approval"
