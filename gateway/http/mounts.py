"""Interfaces mounted beside the agent API (MCP, compatibility layers)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from urllib.parse import urlsplit

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import BaseRoute, Route

from gateway.http import a2h, humanlayer, links
from gateway.http.app import LifespanPart
from gateway.intake import apikeys
from gateway.mcp import build_server
from gateway.services import Services

log = logging.getLogger("gateway")

# The MCP session manager of each Services, between routes() and lifespan_parts().
_MANAGERS: dict[int, StreamableHTTPSessionManager] = {}


def _security(services: Services) -> TransportSecuritySettings:
    """Only the gateway's own host names: a web page cannot rebind DNS to reach /mcp."""
    config = services.config
    public = urlsplit(config.public_url)
    hosts = {"127.0.0.1:*", "localhost:*", f"{config.http_host}:*"}
    origins = {"http://127.0.0.1:*", "http://localhost:*"}
    if public.hostname:
        hosts.update({public.netloc, f"{public.hostname}:*", public.hostname})
        origins.update(
            {f"{public.scheme}://{public.netloc}", f"{public.scheme}://{public.hostname}:*"}
        )
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(hosts),
        allowed_origins=sorted(origins),
    )


def routes(services: Services) -> list[BaseRoute]:
    manager = StreamableHTTPSessionManager(
        app=build_server(services),
        stateless=True,
        json_response=True,
        security_settings=_security(services),
        max_request_body_size=services.config.max_request_bytes,
    )
    _MANAGERS[id(services)] = manager
    return [
        Route("/mcp", endpoint=StreamableHTTPASGIApp(manager), methods=["GET", "POST", "DELETE"]),
        *humanlayer.ROUTES,
        *a2h.ROUTES,
        *links.ROUTES,
    ]


def lifespan_parts(services: Services) -> list[LifespanPart]:
    manager = _MANAGERS.pop(id(services), None)

    @asynccontextmanager
    async def run_mcp(app: Starlette) -> AsyncIterator[None]:
        if manager is None:
            yield
            return
        async with manager.run():
            yield

    def announce(app: Starlette) -> AbstractAsyncContextManager[None]:
        return _announce_access(services)

    return [run_mcp, announce]


@asynccontextmanager
async def _announce_access(services: Services) -> AsyncIterator[None]:
    def required() -> bool:
        with services.db.reading() as session:
            return apikeys.keys_required(services, session)

    if await services.db.run(required):
        log.info("agent API keys are required to file requests (X-API-Key)")
    else:
        log.warning(
            "no agent API keys: the gateway is OPEN, anyone who can reach it may file "
            "requests; create one with 'hfa keys create NAME' or set HFA_API_KEYS"
        )
    yield
