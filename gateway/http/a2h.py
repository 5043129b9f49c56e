"""A2H (proto.a2h.dev/v1alpha1) Message objects, as the create-12-factor-agent template sends them.

``POST /a2h/v1alpha1/messages`` takes a Message (``metadata.uid``,
``spec.agentMessage``, optional ``spec.response_schema`` and
``spec.channel_id``) and files a request; ``GET
/a2h/v1alpha1/messages/{uid}`` returns the same Message with ``status``
filled once the lawyer answers: ``humanMessage`` is the lawyer's text and
``response`` is, for the template's ApprovalSchema (an object with a boolean
``approved``), ``{"approved": ..., "comment": ...}`` from the decision; for
any other schema it is the lawyer's text. An approval with conditions is
``approved: true`` with the conditions first in ``comment`` and listed in
``status.conditions``.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse
from starlette.routing import Route

from gateway import contract
from gateway.errors import FieldProblem, InvalidRequest
from gateway.http.access import admit_filing
from gateway.http.body import read_json
from gateway.intake import compat
from gateway.services import Services

PREFIX = "/a2h/v1alpha1"
API_VERSION = "proto.a2h.dev/v1alpha1"
PROTOCOL = "a2h"


def is_approval_schema(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    approved = (schema.get("properties") or {}).get("approved")
    return isinstance(approved, dict) and approved.get("type") == "boolean"


def message_arguments(services: Services, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if body.get("apiVersion") != API_VERSION or body.get("kind") != "Message":
        raise InvalidRequest(
            f"expected apiVersion {API_VERSION!r} and kind 'Message'",
            [FieldProblem("apiVersion", API_VERSION), FieldProblem("kind", "Message")],
        )
    metadata = body.get("metadata")
    uid = compat.require_id(
        metadata.get("uid") if isinstance(metadata, dict) else None, "metadata.uid"
    )
    spec = body.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("agentMessage"), str):
        raise InvalidRequest(
            "spec.agentMessage is required", [FieldProblem("spec.agentMessage", "a string")]
        )
    approval = is_approval_schema(spec.get("response_schema"))
    category = "human_confirmation" if approval else "legal_review"
    arguments: dict[str, Any] = {
        "category": category,
        "request": spec["agentMessage"],
        "agent_name": "A2H agent",
        "a2h_uid": uid,
    }
    choices = _enum_of(spec.get("response_schema"))
    if choices:
        # A schema of one string from an enum is a multiple choice of its values.
        arguments["options"] = {"format": "multiple_choice", "choices": choices}
    channel = spec.get("channel_id")
    if isinstance(channel, str) and "@" in channel:
        compat.check_lawyer(services, category, channel, "spec.channel_id")
    elif channel is not None:
        arguments["a2h_channel_id"] = str(channel)
    return uid, arguments


def _enum_of(schema: Any) -> list[str]:
    """The values of a ``{"type": "string", "enum": [...]}`` response schema, else none."""
    if not isinstance(schema, dict) or schema.get("type") != "string":
        return []
    values = schema.get("enum")
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return []
    return list(values)


def with_status(loaded: compat.Loaded) -> dict[str, Any]:
    document = dict(loaded.document)
    spec = document.get("spec") or {}
    answer, decision = loaded.answer, loaded.decision
    status: dict[str, Any] = {}
    if answer is not None:
        status["humanMessage"] = answer.text
        if not is_approval_schema(spec.get("response_schema")):
            status["response"] = answer.text
        if answer.choice is not None:
            # The enum value picked: what the response schema asks for.
            status["response"] = status["choice"] = answer.choice
    if decision is not None and is_approval_schema(spec.get("response_schema")):
        status["response"] = {"approved": decision.approved, "comment": decision.text}
        if decision.conditions:
            status["conditions"] = list(decision.conditions)
    document["status"] = status
    document["metadata"] = {
        **(document.get("metadata") or {}),
        "reference": loaded.request.reference,
        "received_at": contract.iso(loaded.request.received_at),
    }
    return document


async def create_message(http: HttpRequest) -> JSONResponse:
    services: Services = http.app.state.services
    body = await read_json(http, services.config.max_request_bytes)
    uid, arguments = message_arguments(services, body)
    api_key_name = admit_filing(http, services, arguments)
    document = {k: v for k, v in body.items() if k != "status"}

    created = await services.db.run(
        compat.file_call,
        services,
        protocol=PROTOCOL,
        external_id=uid,
        arguments=arguments,
        document=document,
        api_key_name=api_key_name,
    )
    loaded = await services.db.run(compat.load_call, services, PROTOCOL, uid, api_key_name)
    return JSONResponse(with_status(loaded), status_code=201 if created else 200)


async def get_message(http: HttpRequest) -> JSONResponse:
    services: Services = http.app.state.services
    api_key_name: str | None = getattr(http.state, "api_key_name", None)
    uid = http.path_params["uid"]
    loaded = await services.db.run(compat.load_call, services, PROTOCOL, uid, api_key_name)
    return JSONResponse(with_status(loaded))


ROUTES = [
    Route(f"{PREFIX}/messages", create_message, methods=["POST"]),
    Route(f"{PREFIX}/messages/{{uid}}", get_message, methods=["GET"]),
]
