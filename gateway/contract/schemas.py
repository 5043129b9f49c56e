"""The three tools: their schemas (``tools.json``), input validation, output checks.

The schemas in ``tools.json`` are the product's contract, word for word; every
interface (HTTP, MCP, compatibility layers) validates against them, so the
shapes cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gateway.contract.storable import StorableObject, value_problems
from gateway.errors import FieldProblem, InvalidRequest

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

REQUEST_TOOL = "request_human_assistance"
STATUS_TOOL = "check_request_status"
ADD_TOOL = "add_to_request"

# Named optional properties of request_human_assistance beyond tools.json (whose input
# schema allows additional properties): for whom the agent asks. An API key may set
# them (``hfa keys create --client ... --matter ...``); the lawyer's emails show them
# as "For: <client> · Matter: <matter>", the agent's own values marked as its claim.
PARTY_FIELDS = ("client", "matter")

# Beside the package, where the wheel has always carried it.
_TOOLS_JSON = Path(__file__).resolve().parents[1] / "tools.json"


@cache
def tools() -> list[dict[str, Any]]:
    """The three tools: name, description, inputSchema, outputSchema."""
    data: list[dict[str, Any]] = json.loads(_TOOLS_JSON.read_text(encoding="utf-8"))
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


def validate_input(name: str, arguments: Any, *, max_chars: int) -> dict[str, Any]:
    """Check a tool's arguments; raise InvalidRequest naming every bad field.

    A :class:`StorableObject` (an HTTP body the reader checked) is not walked again
    for values the gateway cannot store; anything else is.
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
    if not isinstance(arguments, StorableObject):
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
