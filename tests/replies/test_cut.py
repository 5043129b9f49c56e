"""A signature block with no delimiter ends the reply, the closing above it with it."""

from __future__ import annotations

from tests.replies.asks import PAY, read


def test_the_closing_above_a_signature_block_is_cut_with_it() -> None:
    text = (
        "Aprobado.\n\nUn saludo,\n\nJavier Molina Sanz\nAbogado\n"
        "Calle de Serrano 45, 28001 Madrid\nT. +34 91 123 45 67"
    )
    reading = read(text, PAY)
    assert (reading.kind, reading.conditions) == ("approval", ())
    assert "Un saludo," in reading.cut
