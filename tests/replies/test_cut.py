"""A signature block with no delimiter ends the reply, the closing above it with it."""

from __future__ import annotations

import pytest

from tests.replies.asks import PAY, SEND, read


def test_the_closing_above_a_signature_block_is_cut_with_it() -> None:
    text = (
        "Aprobado.\n\nUn saludo,\n\nJavier Molina Sanz\nAbogado\n"
        "Calle de Serrano 45, 28001 Madrid\nT. +34 91 123 45 67"
    )
    reading = read(text, PAY)
    assert (reading.kind, reading.conditions) == ("approval", ())
    assert "Un saludo," in reading.cut


@pytest.mark.parametrize(
    "conditions",
    [
        "- attach the signed NDA\n- copy me on the email",
        "1. attach the signed NDA\n2. copy me on the email",
        "- attach the signed NDA\n- send me a copy",
        "- attach the signed NDA\n- tell me when it is sent",
    ],
)
def test_a_condition_above_the_name_is_never_cut_with_it(conditions: str) -> None:
    """A condition that says "me" (a word the signature tables also hold, as the French
    "Me" before a lawyer's name) is a clause of the answer: cut with the name under it,
    the approval reached the agent with one condition fewer than the lawyer set."""
    reading = read(f"Approved, subject to:\n{conditions}\n\nDana\n", SEND)
    written = [line.split(" ", 1)[1] for line in conditions.split("\n")]
    assert (reading.kind, list(reading.conditions)) == ("conditional_approval", written)
    assert not any(condition in " ".join(reading.cut) for condition in written)


@pytest.mark.parametrize(
    ("reply", "block"),
    [
        (
            "Approuvé.\n\nMe Claire Dupont\nAvocate associée\n"
            "Dupont & Associés\n12 rue de Rivoli\n75001 Paris",
            ("Me Claire Dupont", "Avocate associée", "Dupont & Associés"),
        ),
        ("Godkjent.\n\nKari Nordmann\nAdvokat\nNordic Law AS", ("Kari Nordmann", "Nordic Law AS")),
    ],
)
def test_a_title_or_firm_form_written_as_a_signature_writes_it_is_still_cut(
    reply: str, block: tuple[str, ...]
) -> None:
    reading = read(reply, SEND)
    assert reading.kind == "approval" and reading.conditions == ()
    assert all(line in reading.cut for line in block)
