"""The shape of the answer an agent asks for: ``options`` on a request.

``options`` is an extra property of ``request_human_assistance`` (the published tool
schema allows additional properties and stays the seed's): ``{"format": "free_text" |
"yes_no" | "multiple_choice", "choices": [...]}``. ``free_text`` is the default and
reads the reply as always; ``yes_no`` is the decision reading (a yes or no, an approval
or rejection of the proposed action); ``multiple_choice`` names the choices the lawyer
picks from, by a button per choice or in their own words, and the human turn carries
``choice``: the picked choice's text exactly as the agent gave it.

Choices are labelled A, B, C... and numbered 1, 2, 3... in the order given: the
lawyer may name one by its letter, its number, its place or its text.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from gateway.errors import FieldProblem, InvalidRequest

FORMATS = ("free_text", "yes_no", "multiple_choice")
MULTIPLE_CHOICE = "multiple_choice"
# Letters name the choices, so there are no more choices than the buttons a phone shows
# in a row or two and the letters a reader tells apart at a glance.
MAX_CHOICES = 10
LETTERS = "ABCDEFGHIJ"
MAX_CHOICE_CHARS = 200


@dataclass(frozen=True)
class AnswerShape:
    """What the agent asked for: a format, and the choices of a multiple choice."""

    format: str = "free_text"
    choices: tuple[str, ...] = ()


FREE_TEXT = AnswerShape()


def letter(index: int) -> str:
    """The letter of the choice at ``index`` (0-based): ``A``, ``B``, ..."""
    return LETTERS[index]


def _problem(field: str, expected: str) -> InvalidRequest:
    return InvalidRequest(f"{field}: expected {expected}", [FieldProblem(field, expected)])


def check(value: Any) -> AnswerShape:
    """The shape an agent's ``options`` asks for, or a clear error naming the field."""
    if value is None:
        return FREE_TEXT
    if not isinstance(value, dict):
        raise _problem(
            "options", 'an object such as {"format": "multiple_choice", "choices": [...]}'
        )
    shape = value.get("format", "free_text")
    if shape not in FORMATS:
        raise _problem("options.format", "one of " + ", ".join(FORMATS))
    choices = value.get("choices")
    if shape != MULTIPLE_CHOICE:
        if choices is not None:
            raise _problem("options.choices", 'absent unless format is "multiple_choice"')
        return AnswerShape(shape)
    wanted = f"a list of 2 to {MAX_CHOICES} different strings of 1 to {MAX_CHOICE_CHARS} characters"
    if not isinstance(choices, list) or not 2 <= len(choices) <= MAX_CHOICES:
        raise _problem("options.choices", wanted)
    seen: set[str] = set()
    for number, choice in enumerate(choices):
        field = f"options.choices[{number}]"
        if not isinstance(choice, str) or not choice.strip() or len(choice) > MAX_CHOICE_CHARS:
            raise _problem(field, f"a string of 1 to {MAX_CHOICE_CHARS} characters")
        if any(unicodedata.category(c) in ("Cc", "Cf") for c in choice):
            # A choice is a button's label and a receipt's headline: no line breaks, and no
            # hidden controls (bidi overrides, zero-width marks) that could disguise it.
            raise _problem(field, "one line of printable text")
        folded = " ".join(choice.split()).casefold()
        if folded in seen:
            raise _problem(field, "a choice different from the others")
        seen.add(folded)
    return AnswerShape(shape, tuple(choices))


def shape_of(fields: dict[str, Any] | None) -> AnswerShape:
    """The shape a filed request asked for (checked when it was filed)."""
    try:
        return check((fields or {}).get("options"))
    except InvalidRequest:
        # Filed before options were read: its answer is read as free text.
        return FREE_TEXT
