"""HumanLayer-compatible endpoints under /humanlayer/v1, for the unmodified SDK.

Point the SDK at the gateway with ``HUMANLAYER_API_BASE=<gateway>/humanlayer/v1``
and ``HUMANLAYER_API_KEY=<agent API key>`` (sent as a Bearer token).

- ``POST /function_calls`` files a ``human_confirmation`` request whose
  proposed action is the call: ``fn`` and its ``kwargs`` as a table.
- ``POST /contact_requests`` files a request with the message.
- ``GET .../{call_id}`` returns the object as it was sent (``spec.state``
  included) with ``status`` filled from the thread: an approval gives
  ``approved: true``, a rejection, decline or close ``approved: false``, both
  with the lawyer's text as ``comment`` (an approval with conditions: ``approved:
  true``, the conditions first in ``comment``); any answer gives a contact request
  its ``response``. ``responded_at`` is the time of that answer.

An email channel may only name a configured lawyer; other channels (Slack,
SMS, WhatsApp) are refused, since the gateway answers by email.
"""

from __future__ import annotations

import json
from collections.abc import Callable
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

PREFIX = "/humanlayer/v1"
FUNCTION_CALL = "function_call"
CONTACT_REQUEST = "contact_request"
_CELL = 300


def _object(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidRequest(f"{field} must be an object", [FieldProblem(field, "a JSON object")])
    return value


def _email_channel(
    services: Services, spec: dict[str, Any], category: str
) -> dict[str, Any] | None:
    channel = spec.get("channel")
    if channel is None:
        return None
    channel = _object(channel, "spec.channel")
    others = [k for k in ("slack", "sms", "whatsapp") if channel.get(k)]
    if others:
        raise InvalidRequest(
            f"spec.channel.{others[0]} is not supported: this gateway answers by email only",
            [FieldProblem(f"spec.channel.{others[0]}", "null; use channel.email")],
        )
    email = channel.get("email")
    if email is None:
        return None
    email = _object(email, "spec.channel.email")
    compat.check_lawyer(services, category, email.get("address"), "spec.channel.email.address")
    return email


def _thread_fields(email: dict[str, Any] | None) -> dict[str, Any]:
    """Subject and thread ids the SDK sends (both spellings), kept on the request."""
    if email is None:
        return {}
    out: dict[str, Any] = {}
    for name in ("subject", "in_reply_to_message_id", "references_message_id"):
        value = email.get(name) or email.get(f"experimental_{name}")
        if isinstance(value, str) and value.strip():
            out[f"email_{name}"] = value.strip()
    if isinstance(email.get("context_about_user"), str):
        out["context_about_user"] = email["context_about_user"]
    return out


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= _CELL else text[: _CELL - 1] + "…"


def call_table(fn: str, kwargs: dict[str, Any]) -> str:
    """The call as the lawyer reads it: the function, then one row per argument."""
    width = max([len(str(k)) for k in kwargs] + [len("argument")])
    lines = [f"Call the function {fn} with:", ""]
    lines.append(f"  {'argument'.ljust(width)} | value")
    lines.append(f"  {'-' * width}-+-{'-' * 20}")
    for key, value in kwargs.items():
        lines.append(f"  {str(key).ljust(width)} | {_cell(value)}")
    if not kwargs:
        lines.append("  (no arguments)")
    return "\n".join(lines)


def _common(body: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    call_id = compat.require_id(body.get("call_id"), "call_id")
    run_id = body.get("run_id")
    run = run_id if isinstance(run_id, str) else ""
    spec = _object(body.get("spec"), "spec")
    return call_id, run, spec


def function_call_arguments(services: Services, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    call_id, run_id, spec = _common(body)
    fn = spec.get("fn")
    if not isinstance(fn, str) or not fn.strip():
        raise InvalidRequest(
            "spec.fn must be the function's name", [FieldProblem("spec.fn", "a string")]
        )
    kwargs = _object(spec.get("kwargs"), "spec.kwargs")
    email = _email_channel(services, spec, "human_confirmation")
    thread = _thread_fields(email)
    subject = thread.get("email_subject")
    request = f"May the agent call {fn}? Approve or reject the call below."
    arguments: dict[str, Any] = {
        "category": "human_confirmation",
        "request": f"{subject}\n\n{request}" if subject else request,
        "proposed_action": call_table(fn, kwargs),
        "agent_name": f"HumanLayer SDK run {run_id}" if run_id else "HumanLayer SDK",
        "humanlayer_call_id": call_id,
        "function": fn,
        # One row per argument in the email's table of details (HTML and text).
        **{f"argument {key}": _cell(value) for key, value in kwargs.items()},
        **thread,
    }
    return call_id, arguments


def contact_arguments(services: Services, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    call_id, run_id, spec = _common(body)
    msg = spec.get("msg")
    if not isinstance(msg, str) or not msg.strip():
        raise InvalidRequest("spec.msg must be the message", [FieldProblem("spec.msg", "a string")])
    email = _email_channel(services, spec, "legal_review")
    thread = _thread_fields(email)
    subject = spec.get("subject") if isinstance(spec.get("subject"), str) else None
    subject = subject or thread.get("email_subject")
    arguments: dict[str, Any] = {
        "category": "legal_review",
        "request": f"{subject}\n\n{msg}" if subject else msg,
        "agent_name": f"HumanLayer SDK run {run_id}" if run_id else "HumanLayer SDK",
        "humanlayer_call_id": call_id,
        **thread,
    }
    names = _option_names(spec.get("response_options"))
    if names:
        # Each response option is a choice, by its name; the answer names the one picked.
        arguments["options"] = {"format": "multiple_choice", "choices": names}
    return call_id, arguments


def _option_names(value: Any) -> list[str]:
    """The names of ``spec.response_options`` (HumanLayer's ``ResponseOption``)."""
    if value is None:
        return []
    listed = value if isinstance(value, list) else None
    names = [o.get("name") for o in listed or [] if isinstance(o, dict)]
    if listed is None or len(names) != len(listed) or not all(isinstance(n, str) for n in names):
        raise InvalidRequest(
            "spec.response_options must be a list of objects with a name",
            [FieldProblem("spec.response_options", 'a list such as [{"name": "approve"}]')],
        )
    return [str(n) for n in names]


def _with_status(loaded: compat.Loaded, protocol: str) -> dict[str, Any]:
    document = loaded.document
    status: dict[str, Any] = {"requested_at": contract.iso(loaded.request.received_at)}
    if protocol == FUNCTION_CALL:
        decision = loaded.decision
        status.update(
            responded_at=contract.iso(decision.at) if decision else None,
            approved=decision.approved if decision else None,
            comment=decision.text if decision else None,
            reject_option_name=None,
        )
    else:
        answer = loaded.answer
        status.update(
            responded_at=contract.iso(answer.at) if answer else None,
            response=answer.text if answer else None,
            # The response option the lawyer picked, by its name (``options.choices``).
            response_option_name=answer.choice if answer else None,
        )
    return {**document, "status": status, "reference": loaded.request.reference}


async def _act_then_answer(
    services: Services,
    act: Callable[..., object],
    protocol: str,
    call_id: str,
    api_key_name: str | None,
    **fields: Any,
) -> JSONResponse:
    """``act`` on the call in one transaction, then the call as it now stands."""

    def work() -> None:
        with services.db.transaction() as session:
            act(
                services,
                session,
                protocol=protocol,
                external_id=call_id,
                api_key_name=api_key_name,
                **fields,
            )

    await services.db.run(work)
    return await _answer(services, protocol, call_id, api_key_name)


async def _answer(
    services: Services, protocol: str, call_id: str, api_key_name: str | None
) -> JSONResponse:
    loaded = await services.db.run(compat.load_call, services, protocol, call_id, api_key_name)
    return JSONResponse(_with_status(loaded, protocol))


def _make_create(protocol: str) -> Any:
    async def create(http: HttpRequest) -> JSONResponse:
        services: Services = http.app.state.services
        body = await read_json(http, services.config.max_request_bytes)
        build = function_call_arguments if protocol == FUNCTION_CALL else contact_arguments
        call_id, arguments = build(services, body)
        api_key_name = admit_filing(http, services, arguments)
        document = {k: v for k, v in body.items() if k != "status"}
        await services.db.run(
            compat.file_call,
            services,
            protocol=protocol,
            external_id=call_id,
            arguments=arguments,
            document=document,
            api_key_name=api_key_name,
        )
        return await _answer(services, protocol, call_id, api_key_name)

    return create


def _make_get(protocol: str) -> Any:
    async def get(http: HttpRequest) -> JSONResponse:
        services: Services = http.app.state.services
        api_key_name: str | None = getattr(http.state, "api_key_name", None)
        return await _answer(services, protocol, http.path_params["call_id"], api_key_name)

    return get


def _make_escalate(protocol: str) -> Any:
    async def escalate(http: HttpRequest) -> JSONResponse:
        services: Services = http.app.state.services
        body = await read_json(http, services.config.max_request_bytes)
        message = body.get("escalation_msg")
        if not isinstance(message, str) or not message.strip():
            raise InvalidRequest(
                "escalation_msg must be the message for the lawyer",
                [FieldProblem("escalation_msg", "a non-empty string")],
            )
        if len(message) > services.config.max_field_chars:
            raise InvalidRequest(
                "escalation_msg is too long",
                [FieldProblem("escalation_msg", f"at most {services.config.max_field_chars}")],
            )
        if body.get("additional_recipients") or body.get("channel"):
            # Recipients are the configured lawyers; an escalation cannot add or move them.
            field = "additional_recipients" if body.get("additional_recipients") else "channel"
            raise InvalidRequest(
                f"{field} is not supported: the request's lawyers are fixed by configuration",
                [FieldProblem(field, "null")],
            )
        api_key_name: str | None = getattr(http.state, "api_key_name", None)
        call_id = http.path_params["call_id"]
        return await _act_then_answer(
            services, compat.escalate, protocol, call_id, api_key_name, message=message
        )

    return escalate


ROUTES = [
    Route(f"{PREFIX}/function_calls", _make_create(FUNCTION_CALL), methods=["POST"]),
    Route(f"{PREFIX}/function_calls/{{call_id}}", _make_get(FUNCTION_CALL), methods=["GET"]),
    Route(f"{PREFIX}/contact_requests", _make_create(CONTACT_REQUEST), methods=["POST"]),
    Route(f"{PREFIX}/contact_requests/{{call_id}}", _make_get(CONTACT_REQUEST), methods=["GET"]),
    Route(
        f"{PREFIX}/agent/function_calls/{{call_id}}/escalate_email",
        _make_escalate(FUNCTION_CALL),
        methods=["POST"],
    ),
    Route(
        f"{PREFIX}/agent/human_contacts/{{call_id}}/escalate_email",
        _make_escalate(CONTACT_REQUEST),
        methods=["POST"],
    ),
]
