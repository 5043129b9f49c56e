"""Reading agents' JSON bodies: size-capped, strict, with errors that say what to fix."""

from __future__ import annotations

import json

from starlette.requests import Request

from gateway import contract
from gateway.errors import (
    BodyTooLarge,
    FieldProblem,
    MalformedBody,
    Unauthorized,
)


async def read_json(request: Request, limit: int) -> contract.StorableObject:
    """The body as a JSON object whose every value the gateway can store."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(f"the body is {declared} bytes; at most {limit} are accepted")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"the body is over {limit} bytes; at most {limit} are accepted")
        chunks.append(chunk)
    raw = b"".join(chunks)
    ctype = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if ctype not in ("application/json", "") and not ctype.endswith("+json"):
        raise MalformedBody(
            f"Content-Type must be application/json, got {ctype}",
            [FieldProblem("Content-Type", "application/json")],
        )
    try:
        value = contract.loads(raw)
    except RecursionError:
        raise MalformedBody(
            f"the body is nested too deeply; at most {contract.MAX_JSON_DEPTH} levels",
            [FieldProblem("(body)", f"at most {contract.MAX_JSON_DEPTH} levels of nesting")],
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = (
            f" at line {exc.lineno} column {exc.colno}"
            if isinstance(exc, json.JSONDecodeError)
            else ""
        )
        raise MalformedBody(
            f"the body is not valid JSON{where}: {exc.msg if isinstance(exc, json.JSONDecodeError) else 'not UTF-8'}",
            [FieldProblem("(body)", "a JSON object")],
        ) from None
    if not isinstance(value, dict):
        raise MalformedBody(
            f"the body must be a JSON object, got {type(value).__name__}",
            [FieldProblem("(body)", "a JSON object")],
        )
    # Decided here once: what filing is handed says so by its type.
    return contract.storable_object(value)


def bearer_token(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized(
            "send the access_token as 'Authorization: Bearer <access_token>'",
            [FieldProblem("Authorization", "Bearer <access_token>")],
            headers={"WWW-Authenticate": "Bearer"},
        )
    return token.strip()
