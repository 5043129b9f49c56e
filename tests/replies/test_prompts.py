"""The prompts of the answer links: conditions are the list under one, and one left empty is no answer."""

from __future__ import annotations

import pytest

from gateway.replies.prompts import conditions_in, without_unanswered_prompt


def test_conditions_are_the_list_under_the_prompt_only() -> None:
    text = (
        "APPROVE WITH CONDITIONS\n\nConditions (one per line, each starting with -):\n"
        "- cap liability at 12 months\n-\n- delete 9.3\nThanks, Jane\n- not a condition"
    )
    assert conditions_in(text) == ["cap liability at 12 months", "delete 9.3"]
    assert conditions_in("APPROVE\n- a list, but no conditions heading") == []


@pytest.mark.parametrize(
    ("sent", "recorded"),
    [
        ("Notes (optional):", ""),
        ("Approved.\n\nNotes (optional):\n", "Approved."),
        ("Why (optional):\n\nDana", "Dana"),
        ("Notes (optional):\nSign by Friday.", "Notes (optional):\nSign by Friday."),
        (
            "Conditions (one per line, each starting with -):\n- \n- \n\nGo ahead.",
            "Go ahead.",
        ),
        (
            "Conditions (one per line, each starting with -):\n- a\n- b",
            "Conditions (one per line, each starting with -):\n- a\n- b",
        ),
        ("Notes: keep clause 7 as it is.", "Notes: keep clause 7 as it is."),
    ],
)
def test_a_prompt_left_empty_is_not_part_of_the_answer(sent: str, recorded: str) -> None:
    assert without_unanswered_prompt(sent) == recorded
