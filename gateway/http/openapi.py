"""The OpenAPI document, built from the contract's own schemas."""

from __future__ import annotations

import copy
from typing import Any

from gateway import __version__, contract
from gateway.policy import POLICY_SCHEMA

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "details"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "details": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
                    },
                },
            },
        }
    },
}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


_DESCRIPTIONS = {
    429: "too many calls (filings per key, or wrong access tokens); see Retry-After",
    503: "the database is unavailable for now; see Retry-After",
}


def _errors(*codes: int) -> dict[str, Any]:
    return {
        str(c): {"description": _DESCRIPTIONS.get(c, "error"), "content": _json(ERROR_SCHEMA)}
        for c in codes
    }


def build_openapi() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "hfa-gateway agent API", "version": __version__},
        "components": {
            "securitySchemes": {"accessToken": {"type": "http", "scheme": "bearer"}},
            "schemas": {"Error": ERROR_SCHEMA, "Policy": POLICY_SCHEMA},
        },
        "paths": {
            **_filing_paths(),
            **_reading_paths(),
            "/": {
                "get": {
                    "operationId": "index",
                    "responses": {"200": {"description": "what this is, and its links"}},
                }
            },
            "/healthz": {
                "get": {"operationId": "health", "responses": {"200": {"description": "up"}}}
            },
        },
    }


# The token the agent got when filing, and the request's reference in the path: every
# path after filing takes both.
_BEARER: list[dict[str, list[str]]] = [{"accessToken": []}]
_REFERENCE = {"name": "reference", "in": "path", "required": True, "schema": {"type": "string"}}


def _filing_paths() -> dict[str, Any]:
    request_tool = contract.tool(contract.REQUEST_TOOL)
    add_tool = contract.tool(contract.ADD_TOOL)
    add_input = dict(add_tool["inputSchema"])
    add_input["properties"] = {
        k: v for k, v in add_input["properties"].items() if k not in ("reference", "access_token")
    } | {"withdraw": {"type": "boolean", "description": "Withdraw and close the request."}}
    add_input["required"] = ["message"]
    return {
        "/v1/requests": {
            "post": {
                "operationId": contract.REQUEST_TOOL,
                "description": request_tool["description"],
                "parameters": [
                    {"name": "Idempotency-Key", "in": "header", "schema": {"type": "string"}}
                ],
                "requestBody": {
                    "required": True,
                    "content": _json(request_tool["inputSchema"]),
                },
                "responses": {
                    "201": {
                        "description": "filed",
                        "content": _json(request_tool["outputSchema"]),
                    },
                    "200": {
                        "description": "the same Idempotency-Key and body: the request filed before",
                        "content": _json(request_tool["outputSchema"]),
                    },
                    **_errors(400, 401, 409, 413, 422, 429, 503),
                },
            }
        },
        "/v1/requests/{reference}/messages": {
            "post": {
                "operationId": contract.ADD_TOOL,
                "description": add_tool["description"],
                "security": _BEARER,
                "parameters": [_REFERENCE],
                "requestBody": {"required": True, "content": _json(add_input)},
                "responses": {
                    "201": {"description": "added", "content": _json(add_tool["outputSchema"])},
                    **_errors(400, 401, 404, 409, 413, 422, 429, 503),
                },
            }
        },
    }


def status_schema() -> dict[str, Any]:
    """check_request_status's output, with the ``policy`` object its opening turn carries
    (turn objects take extra keys; the status object does not)."""
    schema: dict[str, Any] = copy.deepcopy(contract.tool(contract.STATUS_TOOL)["outputSchema"])
    turn = schema["properties"]["turns"]["items"]
    turn["properties"]["policy"] = {"$ref": "#/components/schemas/Policy"}
    return schema


_WAITING = [
    {
        "name": "wait",
        "in": "query",
        "required": False,
        "description": "Long-poll: hold the answer until the status or a turn an agent acts "
        "on changes, or this many seconds (at most HFA_WAIT_MAX_SECONDS).",
        "schema": {"type": "number", "minimum": 0},
    },
    {
        "name": "If-None-Match",
        "in": "header",
        "required": False,
        "description": "The ETag of an earlier long-poll: a change since is answered at once.",
        "schema": {"type": "string"},
    },
]
_LAST_EVENT = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "description": "The id of the last event received: only the turns after it are sent.",
    "schema": {"type": "string", "pattern": "^[0-9]{1,9}$"},
}


def _reading_paths() -> dict[str, Any]:
    status_tool = contract.tool(contract.STATUS_TOOL)
    status_output = status_schema()
    return {
        "/v1/requests/{reference}": {
            "get": {
                "operationId": contract.STATUS_TOOL,
                "description": status_tool["description"],
                "security": _BEARER,
                "parameters": [_REFERENCE, *_WAITING],
                "responses": {
                    "200": {
                        "description": "the thread (with an ETag when it was a long-poll)",
                        "content": _json(status_output),
                    },
                    **_errors(401, 404, 422, 429, 503),
                },
            }
        },
        "/v1/requests/{reference}/events": {
            "get": {
                "operationId": "thread_events",
                "description": "The thread's turns as server-sent events (event: turn, id: "
                "the number of turns sent; event: status), then each new turn.",
                "security": _BEARER,
                "parameters": [_REFERENCE, _LAST_EVENT],
                "responses": {
                    "200": {
                        "description": "the event stream",
                        "content": {"text/event-stream": {}},
                    },
                    **_errors(401, 404, 422, 429, 503),
                },
            }
        },
        "/v1/threads/{capability}": {
            "get": {
                "operationId": "read_thread",
                "description": "The thread, read-only, through the capability in thread_url.",
                "parameters": [
                    {
                        "name": "capability",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": {
                    "200": {
                        "description": "the thread",
                        "content": _json(status_output),
                    },
                    **_errors(404),
                },
            }
        },
    }
