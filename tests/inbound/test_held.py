"""Who is told about a held message, and what: the rules of ``gateway.inbound.held``."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gateway.inbound.held import explain, notice_address
from gateway.inbound.record import Outcome
from gateway.store.models import InboundMessage, Recipient


def _row(mail_from: str) -> InboundMessage:
    return InboundMessage(
        received_at=datetime(2026, 11, 28, tzinfo=UTC),
        peer="127.0.0.1",
        mail_from=mail_from,
        rcpt_to=[],
        raw=b"",
        size=0,
        sha256="0" * 64,
        state="done",
    )


@pytest.mark.parametrize(
    ("mail_from", "automatic", "expected"),
    [
        ("Jane@Home.test", False, "jane@home.test"),
        ("<jane@home.test>", False, "jane@home.test"),
        ("", False, None),  # the null sender of a bounce
        ("<>", False, None),
        ("jane@home.test", True, None),  # an auto-reply is never answered
        ("MAILER-DAEMON@mx.firm.test", False, None),
        ("postmaster@firm.test", False, None),
        ("no-reply@service.test", False, None),
        ("gateway@hfa.example", False, None),  # our own domain: a loop
        ("x@bounces.hfa.example", False, None),
        ("not-an-address", False, None),
        # Mailing lists' administrative senders (RFC 3834 section 2).
        ("owner-legal@lists.test", False, None),
        ("legal-request@lists.test", False, None),
        ("legal-bounces@lists.test", False, None),
    ],
)
def test_notices_go_only_to_a_person(mail_from: str, automatic: bool, expected: str | None) -> None:
    assert notice_address(_row(mail_from), automatic, "hfa.example") == expected


@pytest.mark.parametrize(
    ("outcome", "words"),
    [
        (
            Outcome("unverified_sender", "From a@b is not the recipient of this token"),
            "another address",
        ),
        (
            Outcome("unverified_sender", "DMARC failed at the trusted server"),
            "could not be verified",
        ),
        (Outcome("unparseable", "reply text could not be read: x"), "could not be read"),
    ],
)
def test_the_thread_is_told_without_content(outcome: Outcome, words: str) -> None:
    explanation = explain(outcome)
    assert words in explanation.turn_body
    assert "a@b" not in explanation.turn_body and "a@b" not in explanation.reason


def test_a_message_for_no_request_adds_no_turn() -> None:
    explanation = explain(Outcome("no_thread", "no valid reply token"))
    assert explanation.turn_body == "" and "Reply button" in explanation.what_to_do


def test_a_colleague_is_told_who_the_request_went_to() -> None:
    outcome = Outcome(
        "unverified_sender",
        "From partner@lawfirm.test is not the recipient of this token",
        recipient=Recipient(address="counsel@lawfirm.test"),
    )
    explanation = explain(outcome, "partner@lawfirm.test")
    assert "counsel@lawfirm.test" in explanation.reason
    assert "operator to accept" in explanation.what_to_do
    # A stranger from elsewhere learns nothing about who the request went to.
    stranger = explain(outcome, "someone@else.test")
    assert "counsel@lawfirm.test" not in stranger.reason + stranger.what_to_do
