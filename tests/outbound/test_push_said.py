"""What the push tells the agent a lawyer said: the reading, with a limit the action exceeds."""

from __future__ import annotations

from gateway.outbound import push


def test_the_agent_is_told_when_the_action_exceeds_the_lawyers_limit() -> None:
    exceeds = (
        "the proposed action (EUR 48,500.00) is above the limit EUR 40,000 set in the condition"
    )
    turn = {
        "kind": "conditional_approval",
        "author": "human",
        "from": "counsel@firm.test",
        "reading": {"kind": "conditional_approval", "decision": "approval", "exceeds": exceeds},
    }
    said = push._said(turn)
    assert said.startswith("approved, WITH CONDITIONS")
    assert said.endswith(f"NOTE: {exceeds}")
    within = turn | {"reading": {"kind": "conditional_approval", "decision": "approval"}}
    assert "NOTE" not in push._said(within)
