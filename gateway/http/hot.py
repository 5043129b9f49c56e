"""The two calls agents make most, dispatched without the router.

Filing a request and reading its status are most of an agent's traffic. Between
the access checks (``AgentAccess``, which runs for them as for every call) and
their handlers, Starlette's exception middleware, a route table of some forty
patterns and the per-route request wrappers cost about as much as the status
read itself. This middleware sits where the router would and hands exactly
``POST /v1/requests`` and ``GET /v1/requests/{reference}`` to the same
handlers, with the same error answers; every other call goes on to the router.
"""

from __future__ import annotations

import re

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.errors import ApiError, StorageError
from gateway.http import agent_api
from gateway.http.errors import on_api_error, on_client_disconnect, on_storage_error

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
