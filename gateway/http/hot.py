"""The two calls agents make most, dispatched without the router.

Filing a request and reading its status are most of an agent's traffic. Between
the access checks (``AgentAccess``, which runs for them as for every call) and
their handlers, Starlette's exception middleware, a route table of some forty
patterns and the per-route request wrappers cost about as much as the status
read itself. This middleware sits where the router would and hands exactly
``POST /v1/requests`` and ``GET /v1/requests/{reference}`` to the same
handlers, with the same error answers; every other call goes on to the router.

Before all of that, ``KeptStatusReads`` answers a status poll whose answer is kept
(SQLite, nothing committed since) and whose token matches: the commonest call of
all, and the one with least left to do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.errors import ApiError, StorageError
from gateway.http import agent_api
from gateway.http.connections import ARRIVALS
from gateway.http.errors import on_api_error, on_client_disconnect, on_storage_error
from gateway.intake import lookup
from gateway.intake.lookup import StatusReads
from gateway.services import Services
from gateway.store.prepared import Arrivals

_STATUS_PATH = re.compile(r"^/v1/requests/([^/]+)$")
_FILING_PATH = "/v1/requests"


class HotRoutes:
    """Serves filing and status directly; passes everything else to ``app``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            method, path = scope["method"], scope["path"]
            if method == "GET":
                match = _STATUS_PATH.match(path)
                if match is not None:
                    scope["path_params"] = {"reference": match.group(1)}
                    await _answer(agent_api.check_status, scope, receive, send)
                    return
            elif method == "POST" and path == _FILING_PATH:
                scope["path_params"] = {}
                await _answer(agent_api.file_request, scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _answer(endpoint: agent_api.Endpoint, scope: Scope, receive: Receive, send: Send) -> None:
    request = Request(scope, receive, send)
    # The same answers as the app's exception handlers give; anything else propagates
    # to the server-error middleware, which logs it and answers 500, as for any route.
    try:
        response: Response = await endpoint(request)
    except ApiError as exc:
        response = await on_api_error(request, exc)
    except StorageError as exc:
        response = await on_storage_error(request, exc)
    except ClientDisconnect as exc:
        response = await on_client_disconnect(request, exc)
    await response(scope, receive, send)


class KeptStatusReads:
    """Answers a status read from the kept answer (SQLite), ahead of every other layer.

    Between two commits an agent's poll finds the status it found last time, already
    rendered as JSON (``StatusReads``): what remains is the token check, and the
    layers the call would cross on its way to the same bytes cost several times
    that. Only a read whose token matches is answered here. Anything else (no
    token, a wrong one, an unknown reference, a database error, PostgreSQL) goes on
    unchanged, so a 404 is counted, rate-limited and audited as before, and an
    unknown reference and a wrong token still take the same path and time. A
    request the server marked as counted (``connections.ARRIVALS``) may be answered
    from the commit count asked since the last bytes arrived: under load one
    question to SQLite then serves every read of an event-loop turn.
    """

    def __init__(self, app: ASGIApp, services: Services) -> None:
        self.app = app
        self._services = services
        self._reads: StatusReads | None = None
        self._looked = False

    def _kept(self) -> StatusReads | None:
        if not self._looked:
            self._reads = lookup.kept_status(self._services)
            self._looked = True
        return self._reads

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] == "GET"
            and b"wait=" not in scope.get("query_string", b"")
        ):
            # A long-poll (?wait=) waits for a change; the kept answer is the one it waits on.
            match = _STATUS_PATH.match(scope["path"])
            reads = self._kept() if match is not None else None
            if reads is not None and match is not None:
                body = _kept_body(reads, match.group(1), scope)
                if body is not None:
                    # The head Starlette's JSONResponse gives the same body.
                    headers = [
                        (b"content-length", str(len(body)).encode()),
                        (b"content-type", b"application/json"),
                    ]
                    await send({"type": "http.response.start", "status": 200, "headers": headers})
                    await send({"type": "http.response.body", "body": body})
                    return
        await self.app(scope, receive, send)


def _kept_body(reads: StatusReads, reference: str, scope: Scope) -> bytes | None:
    token = _bearer(scope["headers"])
    if token is None:
        return None
    # Marked by the server when it counted the request's arrival; absent elsewhere.
    arrivals = scope.get(ARRIVALS)
    try:
        return reads.status_body(
            reference, token, arrivals if isinstance(arrivals, Arrivals) else None
        )
    except SQLAlchemyError:
        # The full path reads again and answers the storage error as every route does.
        return None


def _bearer(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The bearer token as ``body.bearer_token`` reads it, or None (the full path
    then answers 401)."""
    for name, value in headers:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            token = token.strip()
            return token if scheme.lower() == "bearer" and token else None
    return None
