"""A request's reference: HFA-00042 for request 42, wider past 99999, and junk is no reference."""

from __future__ import annotations

import pytest

from gateway import contract


@pytest.mark.parametrize(
    ("number", "reference"), [(1, "HFA-00001"), (99999, "HFA-99999"), (100000, "HFA-100000")]
)
def test_references_widen_past_99999(number: int, reference: str) -> None:
    assert contract.reference_for(number) == reference
    assert contract.number_from_reference(reference) == number
    assert contract.number_from_reference(reference.lower()) == number


@pytest.mark.parametrize("junk", ["", "HFA-1", "HFA-", "ABC-00001", "HFA-0000x", "HFA-" + "9" * 30])
def test_junk_references_are_unknown(junk: str) -> None:
    assert contract.number_from_reference(junk) is None
