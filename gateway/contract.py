"""The API contract: the three tools' schemas, input validation, output shapes.

The schemas in ``tools.json`` are the product's contract, word for word; every
interface (HTTP, MCP, compatibility layers) validates against them and builds
its answers with the functions below, so the shapes cannot drift apart.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from gateway.clock import iso as iso
from gateway.errors import FieldProblem, InvalidRequest

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

REQUEST_TOOL = "request_human_assistance"
STATUS_TOOL = "check_request_status"
ADD_TOOL = "add_to_request"

# The contract's statuses, in the order a request moves through them.
STATUSES = ("recorded", "reviewed", "answered", "declined", "closed")
# Still waiting for a human's answer: reminders, escalation and deadlines act on these.
AWAITING_ANSWER = ("recorded", "reviewed")
# The kinds of human turn that answer a request (a question or decline is an answer too:
# the ball is then in the agent's court).
# ``conditional_approval``: an approval the human tied to conditions (the turn's
# ``conditions``); never to be read as a bare approval.
HUMAN_ANSWER_KINDS = (
    "reply", "approval", "conditional_approval", "rejection", "question", "decline", "close",
)  # fmt: skip
CONDITIONAL_APPROVAL = "conditional_approval"
APPROVAL_KINDS = ("approval", CONDITIONAL_APPROVAL)
CONDITIONS_NOTICE = (
    "The lawyer approved WITH CONDITIONS (the turn's conditions): proceed only within them."
)
# Said wherever a reply that came after the request was closed is shown (the turn's
# ``late``): the push, the receipt and the status read agree.
LATE_REPLY_NOTICE = (
    "This reply arrived after the request was closed (withdrawn, or closed without an "
    "answer). It is kept on the record; it does not reopen or answer the request."
)

# Named optional properties of request_human_assistance beyond tools.json (whose input
# schema allows additional properties): for whom the agent asks. An API key may set
# them (``hfa keys create --client ... --matter ...``); the lawyer's emails show them
# as "For: <client> · Matter: <matter>", the agent's own values marked as its claim.
PARTY_FIELDS = ("client", "matter")


@cache
def tools() -> list[dict[str, Any]]:
    """The three tools: name, description, inputSchema, outputSchema."""
    data: list[dict[str, Any]] = json.loads(
        Path(__file__).with_name("tools.json").read_text(encoding="utf-8")
    )
    return data


def request_fields() -> tuple[str, ...]:
    """The properties request_human_assistance names, in the contract's order."""
    return tuple(tool(REQUEST_TOOL)["inputSchema"]["properties"])


def tool(name: str) -> dict[str, Any]:
    for t in tools():
        if t["name"] == name:
            return t
    raise KeyError(name)


@cache
def _validator(name: str, which: str) -> Draft202012Validator:
    # The schema libraries load on the first validation: the ops commands that only
    # read the record (hfa health, a container's check every 30 s) never need them.
    from jsonschema import Draft202012Validator

    return Draft202012Validator(tool(name)[which])


@cache
def _compiled(name: str, which: str) -> Callable[[Any], Any]:
    """The schema compiled once to Python code: the check every call pays.

    It only decides; when it refuses, jsonschema (the reference implementation)
    says what is wrong, field by field, so a refusal reads the same as ever.
    Defaults are not filled in: the arguments are kept exactly as sent.
    """
    import fastjsonschema

    check: Callable[[Any], Any] = fastjsonschema.compile(tool(name)[which], use_default=False)
    return check


def _fits(name: str, which: str, value: Any) -> bool:
    check = _compiled(name, which)
    from fastjsonschema import JsonSchemaException

    try:
        check(value)
    except JsonSchemaException:
        return False
    return True


def _path(error: ValidationError) -> str:
    parts = [str(p) for p in error.absolute_path]
    if error.validator == "required":
        # The missing property is named in the message, not in the path.
        missing = error.message.split("'")[1] if "'" in error.message else ""
        parts.append(missing)
    elif error.validator == "additionalProperties":
        schema = _schema_of(error)
        extra = sorted(
            set(error.instance) - set(schema.get("properties", {}))
            if isinstance(error.instance, dict)
            else []
        )
        parts.append(",".join(extra))
    return ".".join(parts) or "(body)"


def _schema_of(error: ValidationError) -> dict[str, Any]:
    schema = error.schema
    return dict(schema) if isinstance(schema, dict) else {}


def _explain(error: ValidationError) -> str:
    schema = _schema_of(error)
    field = _path(error)
    if error.validator == "required":
        return f"{field} is required"
    if error.validator == "enum":
        allowed = ", ".join(repr(v) for v in schema["enum"])
        return f"{field} must be one of {allowed}; got {error.instance!r}"
    if error.validator == "type":
        expected = schema["type"]
        got = type(error.instance).__name__
        return f"{field} must be of type {expected}; got {got}"
    if error.validator == "additionalProperties":
        return f"unexpected property {field}; allowed: {', '.join(schema['properties'])}"
    return f"{field}: {error.message}"


def validate_input(
    name: str, arguments: Any, *, max_chars: int, values_checked: bool = False
) -> dict[str, Any]:
    """Check a tool's arguments; raise InvalidRequest naming every bad field.

    ``values_checked``: the HTTP body reader refused unstorable values already.
    """
    if not isinstance(arguments, dict):
        raise InvalidRequest(
            "the body must be a JSON object",
            [FieldProblem("(body)", f"expected an object, got {type(arguments).__name__}")],
        )
    errors = (
        []
        if _fits(name, "inputSchema", arguments)
        else sorted(_validator(name, "inputSchema").iter_errors(arguments), key=_path)
    )
    problems = [FieldProblem(_path(e), _explain(e)) for e in errors]
    for key, value in arguments.items():
        if isinstance(value, str) and len(value) > max_chars:
            problems.append(
                FieldProblem(key, f"{key} is {len(value)} characters; at most {max_chars} allowed")
            )
    for key in ("request", "message"):
        value = arguments.get(key)
        # A withdrawal needs no words: {"message": "", "withdraw": true} is valid.
        withdrawing = key == "message" and arguments.get("withdraw") is True
        if isinstance(value, str) and not value.strip() and not withdrawing:
            problems.append(FieldProblem(key, f"{key} must not be empty"))
    # MCP and the compat layers decode JSON themselves: NaN, huge numbers, NUL and
    # lone surrogates are refused here too, naming the field.
    if not values_checked:
        problems.extend(value_problems(arguments))
    if problems:
        raise InvalidRequest(
            f"{name}: {len(problems)} problem(s) with the arguments: "
            + "; ".join(p.message for p in problems),
            problems,
        )
    return arguments


def check_output(name: str, result: dict[str, Any]) -> dict[str, Any]:
    """Assert that an answer fits the tool's output schema (a bug if not)."""
    if not _fits(name, "outputSchema", result):
        _validator(name, "outputSchema").validate(result)
    return result


def reference_for(number: int) -> str:
    """HFA-00001 ... HFA-99999, then wider (HFA-100000)."""
    return f"HFA-{number:05d}"


def number_from_reference(reference: str) -> int | None:
    prefix, _, digits = reference.strip().upper().partition("-")
    if prefix != "HFA" or not digits.isdigit() or len(digits) < 5 or len(digits) > 18:
        return None
    return int(digits)


# What each status means, said to the agent on every read.
NOTICE_STATUS = {
    "recorded": "Filed; no human has read it yet. An empty thread means 'not yet', never 'no'.",
    "reviewed": "A human has read it but has not answered yet.",
    "answered": "A human has replied; the reply is one person's view, not authorisation.",
    "declined": "The human will not take this request on.",
    "closed": "The request is closed without an answer.",
}
# A decision read from typed text waits out the correction window before it counts.
HELD_READING_NOTICE = (
    "A human has replied, but what was read from the reply is held and not in effect until "
    "%s: it may still be corrected. Do not act on it before then."
)


def status_notice(
    status: str, *, kind: str | None = None, late: bool = False, held_until: str | None = None
) -> str:
    """What the status means, and what the latest human turn adds to it (its ``kind``,
    whether it came ``late``, when a held reading takes effect): the status read and the
    push say the same."""
    if kind == "pending_decision":
        return HELD_READING_NOTICE % (held_until or "its correction window ends")
    notice = NOTICE_STATUS[status]
    if late:
        return f"{notice} {LATE_REPLY_NOTICE}"
    if kind == CONDITIONAL_APPROVAL:
        return f"{notice} {CONDITIONS_NOTICE}"
    return notice


def status_notice_of(status: str, turns: list[dict[str, Any]]) -> str:
    """:func:`status_notice` for a thread as the contract shows it, oldest turn first."""
    human = next((t for t in reversed(turns) if t.get("author") == "human"), None)
    if human is None:
        return NOTICE_STATUS[status]
    held = human.get("pending") if isinstance(human.get("pending"), dict) else {}
    return status_notice(
        status,
        kind=human.get("kind"),
        late=bool(human.get("late")),
        held_until=held.get("takes_effect_at"),
    )


# --- values a client may send but the gateway cannot store or answer with ------------

MAX_JSON_DEPTH = 64
_INT64 = 2**63
_SURROGATE = re.compile("[\ud800-\udfff]")


class Unrepresentable:
    """A number JSON may spell but nothing downstream can hold (NaN, 1e999999, 10**5000)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _parse_int(text: str) -> int | Unrepresentable:
    # Checked before int(): Python refuses more than 4,300 digits with a ValueError.
    if len(text) > 20:
        return Unrepresentable(text)
    value = int(text)
    return value if -_INT64 <= value < _INT64 else Unrepresentable(text)


def _parse_float(text: str) -> float | Unrepresentable:
    value = float(text)
    return value if math.isfinite(value) else Unrepresentable(text)


def loads(raw: bytes | str) -> Any:
    """json.loads, with every number the gateway cannot store left as Unrepresentable.

    Raises ValueError for text that is not JSON and RecursionError for nesting
    deeper than the interpreter's parser goes.
    """
    return json.loads(
        raw, parse_int=_parse_int, parse_float=_parse_float, parse_constant=Unrepresentable
    )


def dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON, non-ASCII text as is: the bytes every JSON answer carries.

    orjson refuses integers beyond 64 bits, which an agent's extra fields may hold:
    those values are encoded by the standard library instead, to the same text.
    """
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode(
            "utf-8"
        )


def _number_problem(value: Any) -> str | None:
    if isinstance(value, Unrepresentable):
        return f"{value.text[:24]} is not a number the gateway can store"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a number the gateway can store"
    if isinstance(value, int) and not isinstance(value, bool) and not -_INT64 <= value < _INT64:
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


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


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
