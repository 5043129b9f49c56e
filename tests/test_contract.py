"""The contract: tools.json is the seed word for word, and inputs are checked against it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gateway import contract
from gateway.errors import InvalidRequest

SEED = Path(
    os.environ.get(
        "HFA_TEST_SEED_FILE",
        Path(__file__).resolve().parents[2] / "shared" / "seeds" / "001_38b0184d64f5e01c.txt",
    )
)


def seed_objects(text: str) -> list[tuple[str, dict[str, Any]]]:
    """(prose before, JSON object) pairs in the order the seed lists them."""
    decoder = json.JSONDecoder()
    out, position = [], 0
    while (start := text.find("{", position)) >= 0:
        value, end = decoder.raw_decode(text, start)
        out.append((text[position:start].strip(), value))
        position = end
    return out


@pytest.mark.skipif(not SEED.exists(), reason=f"the contract seed is not at {SEED}")
def test_tools_json_is_the_seed_word_for_word() -> None:
    objects = seed_objects(SEED.read_text(encoding="utf-8"))
    assert len(objects) == 6
    for index, tool in enumerate(contract.tools()):
        description, input_schema = objects[2 * index]
        _, output_schema = objects[2 * index + 1]
        assert tool["description"] == description
        assert tool["inputSchema"] == input_schema
        assert tool["outputSchema"] == output_schema
    assert [t["name"] for t in contract.tools()] == [
        "request_human_assistance",
        "check_request_status",
        "add_to_request",
    ]


def test_outputs_forbid_extra_keys() -> None:
    for tool in contract.tools():
        assert tool["outputSchema"]["additionalProperties"] is False


def test_valid_input_passes_and_extra_properties_are_kept() -> None:
    args = {"category": "legal_review", "request": "x", "matter": {"id": 7}}
    assert contract.validate_input(contract.REQUEST_TOOL, args, max_chars=100) is args


def test_every_problem_names_its_field() -> None:
    with pytest.raises(InvalidRequest) as info:
        contract.validate_input(
            contract.REQUEST_TOOL,
            {"category": "x", "urgency": 3, "request": "y" * 11},
            max_chars=10,
        )
    fields = {p.field: p.message for p in info.value.details}
    assert set(fields) == {"category", "urgency", "request"}
    assert "legal_review" in fields["category"]
    assert "routine" in fields["urgency"]
    assert "at most 10" in fields["request"]


def test_status_input_rejects_unknown_properties() -> None:
    with pytest.raises(InvalidRequest) as info:
        contract.validate_input(
            contract.STATUS_TOOL,
            {"reference": "HFA-00001", "access_token": "t", "debug": True},
            max_chars=100,
        )
    assert info.value.details[0].field == "debug"


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
