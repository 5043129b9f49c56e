"""``options`` on a request: the answer's shape, checked when filed, read when answered."""

from __future__ import annotations

from typing import Any

import pytest

from gateway import options
from gateway.errors import InvalidRequest
from tests.conftest import Running


def test_a_multiple_choice_keeps_its_choices_exactly_as_given() -> None:
    shape = options.check({"format": "multiple_choice", "choices": ["Delaware law", " Swiss  "]})
    assert shape == options.AnswerShape("multiple_choice", ("Delaware law", " Swiss  "))
    assert options.check(None) == options.FREE_TEXT
    assert options.check({"format": "yes_no"}).format == "yes_no"
    assert options.check({"urgency": "soon"}) == options.FREE_TEXT


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("multiple_choice", "options"),
        ({"format": "pick_one"}, "options.format"),
        ({"format": "multiple_choice"}, "options.choices"),
        ({"format": "multiple_choice", "choices": ["only one"]}, "options.choices"),
        ({"format": "multiple_choice", "choices": [str(n) for n in range(11)]}, "options.choices"),
        ({"format": "multiple_choice", "choices": ["A", 2]}, "options.choices[1]"),
        ({"format": "multiple_choice", "choices": ["A", ""]}, "options.choices[1]"),
        ({"format": "multiple_choice", "choices": ["A", "x" * 201]}, "options.choices[1]"),
        ({"format": "multiple_choice", "choices": ["A", "two\nlines"]}, "options.choices[1]"),
        ({"format": "multiple_choice", "choices": ["A", "law\u202eB"]}, "options.choices[1]"),
        ({"format": "multiple_choice", "choices": ["Yes", " yes"]}, "options.choices[1]"),
        ({"format": "yes_no", "choices": ["a", "b"]}, "options.choices"),
    ],
)
def test_a_bad_shape_names_the_field_and_what_was_expected(value: Any, field: str) -> None:
    with pytest.raises(InvalidRequest) as raised:
        options.check(value)
    [problem] = raised.value.details
    assert problem.field == field and problem.message


def test_a_stored_request_with_bad_options_reads_as_free_text() -> None:
    assert options.shape_of({"options": {"format": "nope"}}) == options.FREE_TEXT
    assert options.shape_of(None) == options.FREE_TEXT


async def test_filing_refuses_bad_choices_with_a_422_naming_the_field(running: Running) -> None:
    body = {
        "category": "legal_review",
        "request": "Which law?",
        "options": {"format": "multiple_choice", "choices": ["Delaware law"]},
    }
    refused = await running.http.post("/v1/requests", json=body)
    assert refused.status_code == 422, refused.text
    [detail] = refused.json()["error"]["details"]
    assert detail["field"] == "options.choices"
    assert "2 to 10" in detail["message"]
    # Nothing was filed, nothing was mailed.
    assert running.sink.received == []
    fine = await running.file(options={"format": "multiple_choice", "choices": ["A", "B"]})
    assert fine["status"] == "recorded"
