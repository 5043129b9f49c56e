"""What a reading of a reply is: one that breaks its own rules cannot be made."""

from __future__ import annotations

import pytest

from gateway.replies import Reading, ReplyError


def test_a_reading_breaking_its_own_rules_cannot_be_made() -> None:
    with pytest.raises(ReplyError):
        Reading("approval", conditions=("x",), read_from="keyword")
    with pytest.raises(ReplyError):
        Reading("conditional_approval", read_from="keyword")
    with pytest.raises(ReplyError):
        Reading("reply", read_from="yes_no")
