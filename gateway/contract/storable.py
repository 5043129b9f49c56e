"""What the gateway can store: refused in what agents send, escaped in what mail brings.

An agent's JSON is refused, field by field, when it holds a value no column can
keep (:func:`value_problems`); a body that passed is a :class:`StorableObject`,
so that the fact travels with the value and is not decided again. Text read from
mail cannot be refused: it is escaped instead (:func:`storable`).
"""

from __future__ import annotations

import math
import re
from typing import Any

from gateway.contract.codec import INT_LIMIT, MAX_JSON_DEPTH, Unrepresentable
from gateway.errors import FieldProblem, InvalidRequest

_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class StorableObject(dict[str, Any]):
    """A decoded JSON object in which every value can be stored (no NUL, no lone
    surrogate, no number beyond 64 bits, no nesting past ``MAX_JSON_DEPTH``).

    Made by :func:`storable_object`, which refuses anything else. A copy made with
    ``{**value, ...}`` is a plain dict again, and is checked again where it is used.
    """

    __slots__ = ()


def storable_object(value: dict[str, Any]) -> StorableObject:
    """``value`` as a :class:`StorableObject`; InvalidRequest naming each value that is not."""
    problems = value_problems(value)
    if problems:
        # Refused, never stored: such a value would make every later read of it fail.
        raise InvalidRequest(
            f"{len(problems)} value(s) the gateway cannot store: "
            + "; ".join(p.message for p in problems),
            problems,
        )
    return StorableObject(value)


def _number_problem(value: Any) -> str | None:
    if isinstance(value, Unrepresentable):
        return f"{value.text[:24]} is not a number the gateway can store"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a number the gateway can store"
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not -INT_LIMIT <= value < INT_LIMIT
    ):
        return "integers must fit in 64 bits"
    return None


def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "contains a NUL character (\\u0000), which is not stored"
    if not text.isascii() and _SURROGATE.search(text):
        return "contains a lone surrogate (\\ud800-\\udfff), which is not Unicode text"
    return None


def value_problems(value: Any, limit: int = 20) -> list[FieldProblem]:
    """Every place in a decoded JSON value that cannot be stored, by path (at most ``limit``)."""
    problems: list[FieldProblem] = []
    stack: list[tuple[str, Any, int]] = [("", value, 0)]
    while stack and len(problems) < limit:
        path, item, depth = stack.pop()
        where = path or "(body)"
        if depth > MAX_JSON_DEPTH:
            problems.append(FieldProblem(where, f"nested deeper than {MAX_JSON_DEPTH} levels"))
            continue
        if isinstance(item, str):
            why = _text_problem(item)
        elif isinstance(item, dict):
            why = None
            for key, inner in item.items():
                key_text = str(key)
                child = f"{path}.{key_text}" if path else key_text
                key_problem = _text_problem(key_text)
                if key_problem:
                    problems.append(
                        FieldProblem(repr(key_text)[:40], "property name " + key_problem)
                    )
                    continue
                stack.append((child, inner, depth + 1))
        elif isinstance(item, list):
            why = None
            stack.extend(
                (f"{path}.{i}" if path else str(i), inner, depth + 1)
                for i, inner in enumerate(item)
            )
        else:
            why = _number_problem(item)
        if why:
            problems.append(FieldProblem(where, f"{where} {why}"))
    return sorted(problems, key=lambda p: p.field)


def _escape(match: re.Match[str]) -> str:
    char = ord(match.group())
    if 0xDC80 <= char <= 0xDCFF:
        # A byte that was not UTF-8 (surrogateescape): shown as the byte it was.
        return f"\\x{char - 0xDC00:02x}"
    return f"\\x{char:02x}" if char < 0x100 else f"\\u{char:04x}"


def storable(text: str) -> str:
    """``text`` with what no database column can hold (NUL, lone surrogates) escaped.

    For text read from mail, where refusing is not an option: the raw bytes keep
    the original, and the escape is visible (``\\x00``) rather than silent.
    """
    if "\x00" not in text and text.isascii():
        return text
    return _UNSTORABLE.sub(_escape, text)


def storable_value(value: Any) -> Any:
    """``value`` (decoded JSON) with :func:`storable` applied to every string and key."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {storable(str(k)): storable_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [storable_value(v) for v in value]
    return value
