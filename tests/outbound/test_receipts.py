"""The receipt's restatement: what was read, why, when it takes effect, what it replaced."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from gateway.outbound.receipts import receipt_view
from gateway.render import Renderer
from gateway.store.models import Request, Turn

AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
BERLIN = ZoneInfo("Europe/Berlin")


def request() -> Request:
    return Request(
        id=1,
        fields={"request": "May we sign?", "proposed_action": "Sign the ACME NDA."},
        status="recorded",
    )


def human(kind: str, body: str, **data: Any) -> Turn:
    return Turn(seq=2, author="human", kind=kind, at=AT, body=body, data={"from": "a@x"} | data)


def rendered(turn: Turn, view: dict[str, Any], kind_label: str) -> tuple[str, str]:
    """The receipt's text and HTML for ``view``, as the composer renders it."""
    return Renderer().render(
        "receipt",
        subject="s",
        reference="HFA-00001",
        kind_label=kind_label,
        status="answered",
        body=turn.body,
        sent_local="now",
        links=[],
        r=view,
    )


def test_a_held_reading_says_why_and_when_it_takes_effect() -> None:
    turn = human(
        "pending_decision",
        "Approved.",
        decision=None,
        read_from="keyword",
        because="Approved",
        pending={"read_as": "approval", "takes_effect_at": "2026-12-01T09:02:00.000000Z"},
    )
    view = receipt_view(request(), [turn], {"turn_seq": 2}, BERLIN)
    assert view["headline"] == "You APPROVED"
    assert view["effect"] == ""  # the agent is told nothing yet
    reading = view["reading"]
    assert reading["pending"] and not reading["at_once"]
    assert reading["takes_effect"] == "Tue 1 Dec 2026, 10:02:00 CET"
    assert reading["because"] == "Approved" and reading["rule"] == "a decision word"
    assert reading["then"].startswith("The agent is told that you approved")


def test_an_untouched_link_took_effect_at_once() -> None:
    turn = human(
        "approval", "APPROVE", decision="approval", read_from="quick_reply", because="APPROVE"
    )
    view = receipt_view(request(), [turn], {"turn_seq": 2}, BERLIN)
    assert view["reading"]["at_once"] and not view["reading"]["pending"]
    assert view["effect"].startswith("The agent is told that you approved")


def test_a_correction_names_the_reading_it_replaced() -> None:
    turn = human(
        "rejection", "REJECT", decision="rejection", read_from="quick_reply", because="REJECT"
    )
    payload = {
        "turn_seq": 2,
        "replaced": [{"decision": "approval", "at": "2026-12-01T08:59:45.000000Z"}],
    }
    view = receipt_view(request(), [turn], payload, BERLIN)
    assert view["reading"]["replaced"] == ["your APPROVAL of Tue 1 Dec 2026, 09:59:45 CET"]
    text, html = rendered(turn, view, "rejection")
    assert "It replaces your APPROVAL of Tue 1 Dec 2026, 09:59:45 CET, which never" in text
    assert 'because you wrote: "REJECT" (the keyword of the answer link you used)' in " ".join(
        text.split()
    )
    assert "which never took effect" in html


def test_a_reply_with_no_new_text_is_said_to_be_no_answer() -> None:
    turn = human("no_answer", "Thanks!", decision=None, no_answer=True)
    view = receipt_view(request(), [turn], {"turn_seq": 2}, BERLIN)
    assert view["headline"] == "No decision was read from your reply"
    assert "no new text of yours" in view["why"]
    assert not view["reading"]["decided"]


def test_an_undecided_reply_quotes_the_words_and_names_the_true_rule() -> None:
    # "Yes, I'll look at it tomorrow": a yes that defers; the receipt must not claim it had
    # words for two decisions, and must quote what the lawyer wrote.
    said = "Yes, I'll look at it tomorrow morning."
    turn = human(
        "reply", said, decision=None, decision_unclear=True, decision_words="Yes", because=said
    )
    view = receipt_view(request(), [turn], {"turn_seq": 2}, BERLIN)
    assert f'what you wrote ("{said}")' in view["why"]
    assert "defers it" in view["why"]
    assert "negated one" not in view["why"]


def test_a_bare_yes_with_no_decision_says_a_yes_alone_answers_the_question() -> None:
    turn = human("reply", "Yes.", decision=None, decision_unclear=False, answer="yes")
    view = receipt_view(request(), [turn], {"turn_seq": 2}, BERLIN)
    assert "no sentence in it approves, rejects or declines" in view["why"]
    assert "a yes or no alone answers the question" in view["why"]
    assert "does not start with APPROVE" not in view["why"]


def test_a_reply_with_neither_decision_nor_yes_speaks_of_no_yes() -> None:
    # "Go ahead and send me the draft first.": no yes or no in it, so none is mentioned.
    turn = human("reply", "Go ahead and send me the draft first.", decision=None)
    view = receipt_view(request(), [turn], {"turn_seq": 2}, BERLIN)
    assert "no sentence in it approves, rejects or declines the proposed action." in view["why"]
    assert "yes or no" not in view["why"]


def test_the_signature_set_aside_is_named_so_a_wrong_cut_is_seen() -> None:
    turn = human(
        "approval",
        "Approved.",
        decision="approval",
        read_from="keyword",
        because="Approved.",
        signature=["Dana Whitfield", "Partner | Halden Price LLP", "+44 20 7946 0815"],
    )
    view = receipt_view(request(), [turn], {"turn_seq": 2}, BERLIN)
    assert view["reading"]["signature"][0] == "Dana Whitfield"
    text, html = rendered(turn, view, "approval")
    flat = " ".join(text.split())
    assert "Set aside as your signature, not read as part of your answer:" in flat
    assert '"Dana Whitfield / Partner | Halden Price LLP / +44 20 7946 0815"' in flat
    assert "Dana Whitfield / Partner" in html
    # A reply with nothing set aside says nothing about a signature.
    plain = receipt_view(request(), [human("approval", "Approved.")], {"turn_seq": 2}, BERLIN)
    assert plain["reading"]["signature"] == []


def test_a_limit_the_action_exceeds_is_noted_on_the_receipt() -> None:
    exceeds = (
        "the proposed action (EUR 48,500.00) is above the limit EUR 40,000 set in the condition"
    )
    turn = human(
        "conditional_approval",
        "OK, but only up to EUR 40,000.",
        decision="approval",
        read_from="keyword",
        because="OK, but only up to EUR 40,000.",
        conditions=["but only up to EUR 40,000."],
        reading={"kind": "conditional_approval", "exceeds": exceeds},
    )
    view = receipt_view(request(), [turn], {"turn_seq": 2}, BERLIN)
    text, html = rendered(turn, view, "conditional")
    flat = " ".join(text.split())
    assert "The proposed action is above a limit you set; the agent is told so" in flat
    assert "EUR 48,500.00" in flat and "EUR 48,500.00" in html
