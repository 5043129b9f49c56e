"""Which answer-link replies name another request than the thread's (``inbound.crossed``)."""

from __future__ import annotations

import pytest

from gateway.inbound.crossed import named_references, other_request
from gateway.replies import Reading

LINK = Reading("approval", read_from="quick_reply", because="APPROVE", trigger="APPROVE")
TYPED = Reading("approval", read_from="keyword", because="Approved.", trigger="Approved.")


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        ("APPROVE [HFA-00001]", ["HFA-00001"]),
        ("Re: APPROVE [ hfa-00002 ]", ["HFA-00002"]),
        ("APPROVE [HFA-0000001]", ["HFA-00001"]),
        ("APPROVE [HFA-1]", []),
        ("APPROVE [ABC-00001] [HFA-00003]", ["HFA-00003"]),
        ("APPROVE HFA-00004", []),
        ("", []),
    ],
)
def test_the_references_a_subject_names(subject: str, expected: list[str]) -> None:
    assert named_references(subject) == expected


@pytest.mark.parametrize(
    ("reading", "subject", "held"),
    [
        (LINK, "APPROVE [HFA-00002]", True),
        (LINK, "REJECT [HFA-00002]", True),
        (LINK, "APPROVE [HFA-00001] [HFA-00002]", True),
        # Its own reference, or none: the link's own request decides.
        (LINK, "APPROVE [HFA-00001]", False),
        (LINK, "APPROVE", False),
        # Typed text is read against the thread it was sent to, whatever the subject says.
        (TYPED, "Re: Fwd: [HFA-00002] old thread", False),
    ],
)
def test_a_link_naming_another_request_is_held(reading: Reading, subject: str, held: bool) -> None:
    why = other_request(reading, subject, "HFA-00001")
    assert bool(why) is held
    if held:
        assert why.startswith("the answer link names HFA-00002")
        assert why.endswith("reply address of HFA-00001")
