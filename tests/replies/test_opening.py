"""How an answer opens before it answers: a greeting or a preamble is set aside, nothing else."""

from __future__ import annotations

import pytest

from tests.replies.asks import PAY, read


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
