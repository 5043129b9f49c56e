"""The decisive statement said naturally, in the lawyer's own language: an approval or a rejection without a decision word."""

from __future__ import annotations

import pytest

from gateway.replies.kinds import Ask
from tests.replies.asks import PAY, PUBLISH, SEND, read


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
