"""Build the ASGI app around the services (the one composition root passes them in)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from gateway import __version__
from gateway.http.access import AgentAccess
from gateway.http.access_log import AccessLog
from gateway.http.agent_api import ROUTES as AGENT_ROUTES
from gateway.http.audit_log import ROUTES as AUDIT_ROUTES
from gateway.http.audit_tiles import KeptTiles, public_of
from gateway.http.errors import EXCEPTION_HANDLERS
from gateway.http.events import ROUTES as EVENT_ROUTES
from gateway.http.forwarded import ForwardedFor
from gateway.http.hot import HotRoutes, KeptStatusReads
from gateway.http.openapi import build_openapi
from gateway.http.ops import ROUTES as OPS_ROUTES
from gateway.outbound import witnesses
from gateway.services import Services
from gateway.store.tiles import TileCache

LifespanPart = Callable[[Starlette], AbstractAsyncContextManager[None]]


async def healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok", "version": __version__})


async def index(request: Request) -> JSONResponse:
    """What answers here and where to go next: the first URL a newcomer opens."""
    return JSONResponse(
        {
            "service": "hfa-gateway",
            "version": __version__,
            "about": "Agents ask a human (a lawyer) for help: POST /v1/requests files a request, "
            "the lawyer answers by email, and the thread is read back with the access token.",
            "links": {
                "openapi": "/openapi.json",
                "health": "/healthz",
                "ready": "/readyz",
                "file_a_request": "/v1/requests",
            },
        }
    )


async def openapi(request: Request) -> JSONResponse:
    return JSONResponse(build_openapi())


def build_app(
    services: Services,
    *,
    extra_routes: list[BaseRoute] | None = None,
    lifespan_parts: list[LifespanPart] | None = None,
) -> Starlette:
    parts = list(lifespan_parts or [])
    public_of(services.config.raw)  # a bad HFA_AUDIT_PUBLIC stops the start, not a reader

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for part in parts:
                await stack.enter_async_context(part(app))
            yield

    routes: list[BaseRoute] = [
        Route("/", index, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        *AGENT_ROUTES,
        *EVENT_ROUTES,
        *OPS_ROUTES,
        *AUDIT_ROUTES,
        *(extra_routes or []),
    ]
    handlers: Any = EXCEPTION_HANDLERS
    app = Starlette(
        routes=routes,
        exception_handlers=handlers,
        lifespan=lifespan,
        middleware=[*_operated(services), *_checked(services)],
    )
    app.state.services = services
    app.state.audit_tile_cache = TileCache()
    app.state.witness_policy = witnesses.policy_of(services.config.raw)
    return app


def _operated(services: Services) -> list[Middleware]:
    """First the real client behind a trusted proxy, then the access log that names it."""
    listeners = services.config.listeners
    outer = []
    if listeners.trusted_proxies:
        outer.append(Middleware(ForwardedFor, trusted=listeners.is_trusted_proxy))
    if listeners.access_log:
        outer.append(Middleware(AccessLog))
    return outer


def _checked(services: Services) -> list[Middleware]:
    # A tile or a status poll answered from the kept answer needs nothing else; then the
    # access checks, for every other call; then the hot calls skip the router.
    return [
        Middleware(KeptTiles),
        Middleware(KeptStatusReads, services=services),
        Middleware(AgentAccess, services=services),
        Middleware(HotRoutes),
    ]
