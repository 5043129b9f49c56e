"""decide_answer: a yes/no decides the proposed action only where the ask is whether to act."""

from __future__ import annotations

import pytest

from gateway.replies import Ask, Decision, DecisionKind, decide_answer, read_decision
from gateway.replies.answer import asks_whether_to_act
from tests.replies.adversarial import DPA, HOLD, NDA, PAY, SEND


@pytest.mark.parametrize(
    ("ask", "whether_to_act"),
    [
        (NDA, True),
        (SEND, True),
        (Ask("Is it OK to file the trademark application today?", "File the application."), True),
        (Ask("Do you approve signing the lease?", "Sign the lease for Unit 4."), True),
        (HOLD, False),
        (PAY, False),
        (DPA, False),
        (Ask("Should I sign the letter or wait for the fee schedule?", "Sign the letter."), False),
        (Ask("Should I not sign this yet?", "Sign the NDA."), False),
        (Ask("Shall I sign first and negotiate later?", "Sign the NDA."), False),
        (Ask("May I sign the NDA? Or should I ask Tom?", "Sign the NDA."), False),
        # With no action proposed, the question itself names what a yes allows.
        (Ask("May I deploy release 42 to production?", None), True),
        (Ask("Should I hold the payment until it is verified?", None), False),
        (Ask("May I sign the NDA?", "Send the NDA to Tom."), False),
        (Ask("May I sign?", "Sign the NDA."), False),
        # The HumanLayer SDK's ask for a function call names the agent as who acts.
        (
            Ask(
                "May the agent call divide? Approve or reject the call below.",
                "Call the function divide with:\n\n  a | 6\n  b | 5",
            ),
            True,
        ),
        (Ask("May the agent call divide?", "Call the function multiply with: a"), False),
    ],
)
def test_whether_the_ask_is_whether_to_act(ask: Ask, whether_to_act: bool) -> None:
    assert asks_whether_to_act(ask) is whether_to_act


def test_a_bare_yes_is_an_answer_not_a_decision() -> None:
    decision = read_decision("Yes.", None)
    assert decision.kind is None and decision.answer == "yes" and decision.read_from is None
    assert read_decision("No.", None).answer == "no"


@pytest.mark.parametrize(
    ("text", "ask", "kind"),
    [
        ("Yes.", NDA, DecisionKind.APPROVAL),
        ("No.", NDA, DecisionKind.REJECTION),
        ("Ja.", NDA, DecisionKind.APPROVAL),
        ("Yes.", HOLD, None),
        ("No.", HOLD, None),
        ("Yes.", PAY, None),
    ],
)
def test_yes_and_no_decide_only_the_ask_to_act(
    text: str, ask: Ask, kind: DecisionKind | None
) -> None:
    decision = decide_answer(read_decision(text, None), ask)
    assert decision.kind is kind
    if kind is not None:
        assert decision.read_from == "yes_no" and decision.because == text
    else:
        assert decision.answer is not None  # kept as the turn's data


def test_keyword_decisions_pass_through() -> None:
    approved = read_decision("Approved.", None)
    assert decide_answer(approved, HOLD) == approved
    unclear = Decision(None, "Yes", ambiguous=True)
    assert decide_answer(unclear, NDA) == unclear


@pytest.mark.parametrize(
    "text",
    [
        "Approved, but do not sign it.",
        "Yes, but don't sign their version.",
        "OK to sign, but never sign",
    ],
)
def test_an_approval_that_forbids_the_action_is_no_decision(text: str) -> None:
    decision = decide_answer(read_decision(text, None), NDA)
    assert decision.kind is None and decision.ambiguous


def test_a_condition_that_forbids_something_else_stands() -> None:
    decision = decide_answer(read_decision("Approved, but do not share the annex.", None), NDA)
    assert decision.kind is DecisionKind.APPROVAL and decision.conditions
