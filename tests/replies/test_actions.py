"""The proposed action, found in the asker's language, and whether the ask is whether to act."""

from __future__ import annotations

from gateway.replies.actions import action_of, asks_to_act
from gateway.replies.kinds import Ask
from tests.replies.asks import read


def test_the_proposed_action_is_found_in_the_askers_language() -> None:
    polish = Ask("Czy mogę zapłacić fakturę biegłego?", "Zapłacić fakturę biegłego")
    dutch = Ask("Mag ik de factuur betalen?", "De factuur van de deurwaarder betalen")
    assert action_of(polish) == "pay"
    assert action_of(dutch) == "pay"
    assert read("Sí, págala.", Ask("¿Puedo pagar la factura?", "Pagar la factura")).kind == (
        "approval"
    )


def test_an_ask_in_the_lawyers_own_language_is_read_as_whether_to_act() -> None:
    booking = Ask("Darf ich den Notartermin für Donnerstag buchen?", "Book the notary appointment")
    assert asks_to_act(booking)
    assert read("Ja, passt so.", booking).kind == "approval"
    assert read("Nein.", booking).kind == "rejection"
    choice = Ask("Soll ich bis Montag warten oder heute buchen?", "Book the notary appointment")
    assert not asks_to_act(choice)
    assert read("Ja.", choice).kind != "approval"


def test_with_no_action_proposed_the_question_in_the_lawyers_language_names_it() -> None:
    """An agent that files its question alone ("Darf ich den Vertrag mit Kestrel
    unterschreiben?") asks whether to do what the question's verb names, as "May I sign the
    Kestrel contract?" does in English: a yes approves it, a no rejects it."""
    sign = Ask("Darf ich den Vertrag mit Kestrel unterschreiben?", None)
    assert asks_to_act(sign)
    assert read("Ja, passt so.", sign).kind == "approval"
    assert read("Nein, noch nicht.", sign).kind == "rejection"
    firmar = Ask("¿Puedo firmar el contrato hoy?", "")
    assert read("Sí, adelante.", firmar).kind == "approval"


def test_with_no_action_proposed_a_question_that_names_no_action_or_offers_a_choice_is_not() -> (
    None
):
    """A yes then answers something else: nothing is decided."""
    for question in (
        "Darf ich fragen, wann die Frist endet?",
        "Soll ich die Klage heute oder morgen einreichen?",
        "Darf ich den Vertrag unterschreiben? Und soll ich ihn danach an Kestrel schicken?",
    ):
        ask = Ask(question, None)
        assert not asks_to_act(ask), question
        assert read("Ja.", ask).kind == "reply", question
