"""The API contract: the three tools' schemas, input validation, output shapes.

The schemas in ``tools.json`` are the product's contract, word for word; every
interface (HTTP, MCP, compatibility layers) validates against them and builds
its answers with the functions below, so the shapes cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import fastjsonschema
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from gateway.errors import FieldProblem, InvalidRequest

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
    return Draft202012Validator(tool(name)[which])


@cache
def _compiled(name: str, which: str) -> Callable[[Any], Any]:
    """The schema compiled once to Python code: the check every call pays.

    It only decides; when it refuses, jsonschema (the reference implementation)
    says what is wrong, field by field, so a refusal reads the same as ever.
    Defaults are not filled in: the arguments are kept exactly as sent.
    """
    check: Callable[[Any], Any] = fastjsonschema.compile(tool(name)[which], use_default=False)
    return check


def _fits(name: str, which: str, value: Any) -> bool:
    try:
        _compiled(name, which)(value)
    except fastjsonschema.JsonSchemaException:
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


def validate_input(name: str, arguments: Any, *, max_chars: int) -> dict[str, Any]:
    """Check a tool's arguments; raise InvalidRequest naming every bad field."""
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
        if isinstance(value, str) and not value.strip():
            problems.append(FieldProblem(key, f"{key} must not be empty"))
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


def iso(moment: datetime) -> str:
    """RFC 3339 UTC with a Z, as the contract's date-time fields are written."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


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
