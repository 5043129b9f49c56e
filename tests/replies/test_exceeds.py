"""A limit the proposed action exceeds is flagged; one it keeps within is not."""

from __future__ import annotations

import pytest

from gateway import replies
from gateway.replies.exceeds import exceeded
from gateway.replies.kinds import Ask

PAY = Ask("May I pay the invoice of EUR 48,500.00?", "Pay EUR 48,500.00 to Kraftwerk GmbH")


def read(text: str) -> replies.Reading:
    return replies.read_reply(replies.read_text(text, None), PAY)


@pytest.mark.parametrize(
    "text",
    [
        "OK, but only up to EUR 40,000.",
        "Genehmigt, aber höchstens 45.000 €.",
        "Approved, capped at 40 000 EUR.",
    ],
)
def test_a_limit_below_the_amount_asked_is_flagged(text: str) -> None:
    reading = read(text)
    assert reading.kind == "conditional_approval"
    assert reading.exceeds is not None and "EUR 48,500.00" in reading.exceeds
    assert reading.as_json()["exceeds"] == reading.exceeds


@pytest.mark.parametrize(
    "text",
    [
        "Approved, max. 50.000 EUR.",
        "OK, but only up to USD 10,000.",
        "Approved, provided it is paid by Friday.",
    ],
)
def test_a_limit_the_action_keeps_within_or_of_another_currency_is_not(text: str) -> None:
    assert read(text).exceeds is None


def test_amounts_are_read_in_every_notation() -> None:
    ask = Ask("Pay CHF 12'500.50?", "Pay CHF 12'500.50")
    assert exceeded(("nur bis CHF 12'000",), ask) is not None
    assert exceeded(("nur bis CHF 12'600",), ask) is None
    assert exceeded(("up to 12,000",), ask) is None  # no currency: nothing to compare
