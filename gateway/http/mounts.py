"""Interfaces mounted beside the agent API (MCP, compatibility layers)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from starlette.applications import Starlette
from starlette.routing import BaseRoute, Route

from gateway.http import a2h, a2h_v1, humanlayer, links
from gateway.http.app import LifespanPart
from gateway.http.mcp_mount import LazyMcp
from gateway.intake import apikeys
from gateway.services import Services

log = logging.getLogger("gateway")

# The /mcp endpoint of each Services, between routes() and lifespan_parts().
_MCP: dict[int, LazyMcp] = {}


def routes(services: Services) -> list[BaseRoute]:
    mcp = LazyMcp(services)
    _MCP[id(services)] = mcp
    return [
        Route("/mcp", endpoint=mcp, methods=["GET", "POST", "DELETE"]),
        *humanlayer.ROUTES,
        *a2h.ROUTES,
        *a2h_v1.ROUTES,
        *links.ROUTES,
    ]


def lifespan_parts(services: Services) -> list[LifespanPart]:
    mcp = _MCP.pop(id(services), None)

    @asynccontextmanager
    async def run_mcp(app: Starlette) -> AsyncIterator[None]:
        if mcp is None:
            yield
            return
        async with mcp.lifespan(app):
            yield

    def announce(app: Starlette) -> AbstractAsyncContextManager[None]:
        return _announce_access(services)

    return [run_mcp, announce]


@asynccontextmanager
async def _announce_access(services: Services) -> AsyncIterator[None]:
    def required() -> bool:
        with services.db.read_only() as session:
            return apikeys.keys_required(services, session)

    if await services.db.run(required):
        log.info("agent API keys are required to file requests (X-API-Key)")
    else:
        log.warning(
            "no agent API keys: the gateway is OPEN, anyone who can reach it may file "
            "requests; create one with 'hfa keys create NAME' or set HFA_API_KEYS"
        )
    yield
