"""What a status means, told to the agent: the status notice and what the latest human turn adds."""

from __future__ import annotations

from gateway import contract


def test_the_status_notice_adds_what_the_latest_human_turn_means() -> None:
    opened = {"author": "agent", "kind": "request"}
    assert contract.status_notice_of("recorded", [opened]) == contract.NOTICE_STATUS["recorded"]
    held = {"author": "human", "kind": "pending_decision", "pending": {"takes_effect_at": "T"}}
    assert contract.status_notice_of("recorded", [opened, held]) == (
        contract.HELD_READING_NOTICE % "T"
    )
    conditional = {"author": "human", "kind": "conditional_approval"}
    assert contract.status_notice_of("answered", [opened, held, conditional]).endswith(
        contract.CONDITIONS_NOTICE
    )
    late = {"author": "human", "kind": "conditional_approval", "late": True}
    assert contract.status_notice_of("closed", [opened, late]).endswith(contract.LATE_REPLY_NOTICE)
