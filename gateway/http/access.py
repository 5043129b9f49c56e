"""Who may call: API keys on the filing endpoints, and the rate limits.

An ASGI middleware, so the check covers every interface that files a
request (the HTTP API, MCP over HTTP, the HumanLayer and A2H endpoints) in
one place. The key's name is left in ``request.state.api_key_name`` for the
handlers, which record it on the request and in the audit log.
"""

from __future__ import annotations

import re
from typing import Any

from starlette.datastructures import Headers
from starlette.requests import Request as HttpRequest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway import contract
from gateway.errors import ApiError, FieldProblem, StorageError, Unauthorized
from gateway.http.errors import api_error_response, error_response
from gateway.intake import apikeys
from gateway.intake.ratelimit import limits_for
from gateway.intake.rejections import rejections_for
from gateway.services import Services

# Paths that file requests (or carry tools that do), and so need a key when keys exist.
_KEYED = re.compile(r"^/(?:mcp|humanlayer/v1|a2h|v1/(?:intent|status|cancel))(?:/|$)")
# A2H v1.0's own paths: its key may come as X-A2H-API-Key or Authorization: Bearer.
_A2H_V1 = re.compile(r"^/v1/(?:intent|status|cancel)(?:/|$)")
_FILING = "/v1/requests"
# Paths that check an access token or a read capability: their 404s are wrong tokens,
# counted per reference (for the rate limit) and audited per client (throttled).
_TOKEN_CHECKED = re.compile(r"^/v1/(?:requests/([^/]+)(?:/messages|/events)?|threads/[^/]+)$")


def presented_key(headers: Headers, path: str) -> str | None:
    """X-API-Key, or (outside /v1, where Bearer is the access token) Authorization: Bearer."""
    key = headers.get("x-api-key") or headers.get("x-a2h-api-key")
    if key:
        return key.strip()
    if path.startswith("/v1/") and not _A2H_V1.match(path):
        return None
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def client_address(scope: Scope) -> str:
    client = scope.get("client")
    return f"addr:{client[0]}" if client else "addr:unknown"


class AgentAccess:
    """Checks API keys and rate limits before the app sees a call."""

    def __init__(self, app: ASGIApp, services: Services) -> None:
        self.app = app
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        method: str = scope["method"]
        try:
            if (path == _FILING and method == "POST") or _KEYED.match(path):
                await self._authenticate(scope, path)
                if path == _FILING:
                    limits_for(self.services).check_filing(filer(scope))
            else:
                match = _TOKEN_CHECKED.match(path)
                if match:
                    await self._watch_token_failures(match.group(1), scope, receive, send)
                    return
        except ApiError as exc:
            await api_error_response(exc)(scope, receive, send)
            return
        except StorageError:
            refused = error_response(
                503, "storage_unavailable", "try again shortly", headers={"Retry-After": "5"}
            )
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _authenticate(self, scope: Scope, path: str) -> None:
        services = self.services
        key = presented_key(Headers(scope=scope), path)

        # From a snapshot of the live keys at most half a second old: no read per filing.
        required, name = await services.db.run(apikeys.key_cache(services).check, key)
        if required and name is None:
            raise Unauthorized(
                "an agent API key is required: send it as 'X-API-Key: <key>'"
                if key is None
                else "this API key is not valid (unknown or revoked)",
                [FieldProblem("X-API-Key", "a live agent API key")],
                headers={"WWW-Authenticate": 'ApiKey header="X-API-Key"'},
            )
        scope.setdefault("state", {})["api_key_name"] = name
        scope["state"]["filer"] = f"key:{name}" if name else client_address(scope)

    async def _watch_token_failures(
        self, raw_reference: str | None, scope: Scope, receive: Receive, send: Send
    ) -> None:
        # Everything here is for a 404 (a wrong token or an unknown reference): worked
        # out only when one is answered, not for every read that succeeds.
        services = self.services
        answered = False

        async def watch(message: Message) -> None:
            nonlocal answered
            if answered:
                return  # the body of a 404 replaced by the 429 below
            # The same 404 answers an unknown reference and a wrong token.
            if message["type"] == "http.response.start" and message["status"] == 404:
                limits = limits_for(services)
                who = client_address(scope)
                if raw_reference is not None:
                    wait = limits.token_wait(who, raw_reference)
                    if wait:
                        answered = True
                        exc = limits.wrong_tokens(raw_reference, wait)
                        await api_error_response(exc)(scope, receive, send)
                        return
                    limits.token_failed(who, raw_reference)
                client = scope.get("client")
                actor = f"http:{client[0] if client else 'unknown'}"
                await rejections_for(services).note(
                    actor, _known_reference(raw_reference), scope["method"]
                )
            await send(message)

        await self.app(scope, receive, watch)


def _known_reference(raw: str | None) -> str | None:
    """The reference in its canonical form, when the path names a well-formed one."""
    number = contract.number_from_reference(raw or "")
    return contract.reference_for(number) if number is not None and number < 10**9 else None


def filer(scope: Scope) -> str:
    """Who a filing counts against: the key's name, or the client address when open."""
    state = scope.get("state") or {}
    return str(state.get("filer") or client_address(scope))


def admit_filing(http: HttpRequest, services: Services, arguments: dict[str, Any]) -> str | None:
    """What every compatibility endpoint checks before it files: the contract, then the
    filer's rate limit. Returns the API key's name (None when the gateway is open)."""
    contract.validate_input(
        contract.REQUEST_TOOL, arguments, max_chars=services.config.max_field_chars
    )
    limits_for(services).check_filing(filer(http.scope))
    name: str | None = getattr(http.state, "api_key_name", None)
    return name
