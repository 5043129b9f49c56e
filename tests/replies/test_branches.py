"""A condition's other branch, said in the next sentence, is part of the condition."""

from __future__ import annotations

from tests.replies.asks import PAY, read


def test_a_conditions_other_branch_is_part_of_it() -> None:
    reading = read(
        "Du må gerne betale, forudsat at fakturaen er attesteret. Ellers venter vi.", PAY
    )
    assert reading.kind == "conditional_approval"
    assert reading.conditions[-1] == "Ellers venter vi."
