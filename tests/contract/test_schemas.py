"""The contract: tools.json is the seed word for word, and inputs are checked against it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from gateway import contract
from gateway.contract import schemas
from gateway.errors import InvalidRequest

SEED = Path(
    os.environ.get(
        "HFA_TEST_SEED_FILE",
        Path(__file__).resolve().parents[3] / "shared" / "seeds" / "001_38b0184d64f5e01c.txt",
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


# Values shaped like what agents send: the contract's own keys, right and wrong types.
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["legal_review", "routine", "blocking", "HFA-00001", ""]),
    st.lists(st.text(max_size=3), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_KEYS = st.sampled_from(
    ["category", "request", "urgency", "reply_to", "reference", "access_token", "message", "x"]
)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from([t["name"] for t in contract.tools()]),
    st.dictionaries(_KEYS, _VALUES, max_size=6),
)
def test_the_compiled_check_accepts_only_what_jsonschema_accepts(
    name: str, arguments: dict[str, Any]
) -> None:
    # The compiled schema decides alone when it accepts, so it must never be laxer.
    reference = Draft202012Validator(contract.tool(name)["inputSchema"])
    if schemas._fits(name, "inputSchema", arguments):
        assert reference.is_valid(arguments)
    else:
        assert not reference.is_valid(arguments)


def test_validation_does_not_fill_in_defaults() -> None:
    # The stored fields and the idempotency fingerprint are what the agent sent.
    args = {"category": "legal_review", "request": "x"}
    contract.validate_input(contract.REQUEST_TOOL, args, max_chars=100)
    assert args == {"category": "legal_review", "request": "x"}
