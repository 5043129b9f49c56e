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
