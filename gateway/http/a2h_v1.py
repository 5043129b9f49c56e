"""Twilio's A2H v1.0 over HTTP: discovery, intents, status, cancel, and the JWKS.

``GET /.well-known/a2h`` says what this gateway speaks; ``POST /v1/intent``
takes an AUTHORIZE, COLLECT, ESCALATE, INFORM or RESULT (``intake.a2h_v1``);
``GET /v1/status/{interaction_id}`` answers its state and, once answered, the
RESPONSE signed with the key at ``/.well-known/jwks.json``; ``POST
/v1/cancel/{interaction_id}`` withdraws it. The API key is sent as
``X-A2H-API-Key`` (or ``X-API-Key``, or ``Authorization: Bearer``), checked as
for every filing interface. Errors have A2H's shape (``{"error": "ERR.*",
"message", "details"}``), the field that is wrong named in ``details.fields``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gateway import contract
from gateway.errors import ApiError, StorageError
from gateway.http.access import admit_filing
from gateway.http.body import read_json
from gateway.intake import a2h_v1, waiting
from gateway.intake.jws import signer_for
from gateway.services import Services

Endpoint = Callable[[HttpRequest], Awaitable[Response]]
_CODES = {404: "ERR.INVALID_REQUEST", 409: "ERR.CONFLICT", 429: "ERR.RATE_LIMITED"}


def a2h_error(exc: ApiError) -> JSONResponse:
    fields = [d.as_json() for d in exc.details]
    code = _CODES.get(exc.status, "ERR.INVALID_REQUEST")
    if any(f["field"] == "created_at" for f in fields):
        code = "ERR.REPLAY_REJECTED"
    body: dict[str, Any] = {"error": code, "message": exc.message, "details": {"fields": fields}}
    retry = exc.headers.get("Retry-After")
    if retry is not None:
        body["retry_after_sec"] = int(retry)
    return JSONResponse(body, status_code=exc.status, headers=exc.headers)


def a2h_errors(endpoint: Endpoint) -> Endpoint:
    async def answer(http: HttpRequest) -> Response:
        try:
            return await endpoint(http)
        except ApiError as exc:
            return a2h_error(exc)
        except StorageError:
            body = {"error": "ERR.CHANNEL_UNAVAILABLE", "message": "try again shortly"}
            return JSONResponse(body, status_code=503, headers={"Retry-After": "5"})

    return answer


def _services(http: HttpRequest) -> Services:
    services: Services = http.app.state.services
    return services


async def discovery(http: HttpRequest) -> JSONResponse:
    services = _services(http)
    base = services.config.public_url.rstrip("/")
    return JSONResponse(
        {
            "a2h_supported": [a2h_v1.VERSION],
            "channels": ["email"],
            "factors": [a2h_v1.FACTOR],
            "intents": [*a2h_v1.FILED, *a2h_v1.RECORDED],
            "max_ttl_sec": a2h_v1.TTL_RANGE[1],
            "default_ttl_sec": a2h_v1.DEFAULT_TTL,
            "jwks_uri": f"{base}/.well-known/jwks.json",
            "auth": {"methods": ["api_key"], "api_key_header": "X-A2H-API-Key"},
            "replay_protection": {"idempotency_window_sec": None, "timestamp_tolerance_sec": 300},
            "webhooks": {"supported": True, "signature": "X-A2H-Signature t=,v1= HMAC-SHA256"},
            "profiles": [],
            "extensions": {
                "hfa-gateway/layer2": {
                    "documentation": f"{base}/openapi.json",
                    "multi_party_approval": "HFA_POLICIES (N-of-M, veto) per category",
                    "delegation": "lawyer aliases and out-of-office delegation",
                    "conditional_defaults": "deadlines, reminders and escalation",
                }
            },
        }
    )


async def jwks(http: HttpRequest) -> JSONResponse:
    return JSONResponse(signer_for(_services(http)).jwks())


async def intent(http: HttpRequest) -> JSONResponse:
    services = _services(http)
    body = await read_json(http, services.config.max_request_bytes)
    kind = a2h_v1.check_envelope(body)
    now = services.clock.now()
    a2h_v1.check_timestamp(body, now)
    api_key_name: str | None = getattr(http.state, "api_key_name", None)
    if kind in a2h_v1.RECORDED:

        def add() -> tuple[Any, bool]:
            with services.db.transaction() as session:
                row, created = a2h_v1.record(services, session, body, api_key_name)
                return row.interaction_id, created

        interaction_id, created = await services.db.run(add)
        return await _answer(services, interaction_id, api_key_name, duplicate=not created)
    a2h_v1.check_callback(body, services.config.webhook_allow_private)
    arguments = a2h_v1.arguments_for(services, body, kind, now)
    api_key_name = admit_filing(http, services, arguments)

    def file() -> tuple[str, bool]:
        with services.db.transaction() as session:
            seen = a2h_v1.replayed(session, body["message_id"], api_key_name)
            if seen is not None:
                return seen.interaction_id, False
            row = a2h_v1.open_interaction(services, session, body, arguments, api_key_name)
            return row.interaction_id, True

    interaction_id, created = await services.db.run(file)
    return await _answer(services, interaction_id, api_key_name, duplicate=not created)


async def _answer(
    services: Services, interaction_id: str, api_key_name: str | None, *, duplicate: bool
) -> JSONResponse:
    status = await _status(services, interaction_id, api_key_name)
    shown = {k: status[k] for k in ("interaction_id", "state", "created_at", "ttl_sec")}
    shown["channel_id"] = "email"
    shown["reference"] = status["reference"]
    if duplicate:
        shown["duplicate"] = True
    return JSONResponse(shown, status_code=200)


async def _status(services: Services, interaction_id: str, api_key_name: str | None) -> dict[str, Any]:  # fmt: skip
    def read() -> dict[str, Any]:
        with services.db.read_only() as session:
            row = a2h_v1.find(session, interaction_id, api_key_name)
            return a2h_v1.status_of(services, session, row, signer_for(services))

    return await services.db.run(read)


async def status(http: HttpRequest) -> JSONResponse:
    """The state; with ``?wait=`` (seconds, at most HFA_WAIT_MAX_SECONDS) held while it is
    ``WAITING_INPUT``, as the agent API's long-poll is (``intake.waiting``)."""
    services = _services(http)
    api_key_name: str | None = getattr(http.state, "api_key_name", None)
    interaction_id = http.path_params["interaction_id"]
    wait = waiting.wait_seconds(http.query_params.get("wait"), services.config.wait_max_seconds)
    if not wait:
        return JSONResponse(await _status(services, interaction_id, api_key_name))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while True:
        # The mark first, then the state: a change between the two wakes the wait at once.
        baseline = await _mark_of(services, interaction_id, api_key_name)
        found = await _status(services, interaction_id, api_key_name)
        left = deadline - loop.time()
        if found["state"] != "WAITING_INPUT" or left <= 0:
            return JSONResponse(found)
        number = contract.number_from_reference(found["reference"])
        assert number is not None
        if await waiting.waiting_for(services).until(number, _differs(baseline), left) is None:
            return JSONResponse(found)


def _differs(baseline: waiting.Mark | None) -> waiting.Changed:
    return lambda mark: mark != baseline


async def _mark_of(
    services: Services, interaction_id: str, api_key_name: str | None
) -> waiting.Mark | None:
    def read() -> waiting.Mark | None:
        with services.db.read_only() as session:
            row = a2h_v1.find(session, interaction_id, api_key_name)
            return waiting.read_marks(session.connection(), [row.request_id]).get(row.request_id)

    return await services.db.run(read)


async def cancel(http: HttpRequest) -> JSONResponse:
    services = _services(http)
    api_key_name: str | None = getattr(http.state, "api_key_name", None)
    interaction_id = http.path_params["interaction_id"]

    def work() -> None:
        with services.db.transaction() as session:
            row = a2h_v1.find(session, interaction_id, api_key_name)
            a2h_v1.cancel(services, session, row)

    await services.db.run(work)
    return JSONResponse({"success": True, "message": "Interaction cancelled", "state": "CANCELLED"})


ROUTES = [
    Route("/.well-known/a2h", discovery, methods=["GET"]),
    Route("/.well-known/jwks.json", jwks, methods=["GET"]),
    Route("/v1/intent", a2h_errors(intent), methods=["POST"]),
    Route("/v1/status/{interaction_id}", a2h_errors(status), methods=["GET"]),
    Route("/v1/cancel/{interaction_id}", a2h_errors(cancel), methods=["POST"]),
]
