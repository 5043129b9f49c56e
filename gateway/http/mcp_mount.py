"""MCP over streamable HTTP at /mcp, loaded with its first request.

The MCP SDK (with pydantic and what it brings) is some 30 MB of each process's
memory; most deployments are driven over the agent API and never call /mcp.
The SDK is imported, off the event loop, when the first call arrives, and its
session manager runs from then until the HTTP server stops.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.services import Services


def _security(services: Services, settings_class: Any) -> Any:
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
    return settings_class(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(hosts),
        allowed_origins=sorted(origins),
    )


def _load() -> tuple[Any, Any, Any, Any]:
    """The SDK's parts and the gateway's MCP server, imported here (in a thread)."""
    from mcp.server.streamable_http_manager import (
        StreamableHTTPASGIApp,
        StreamableHTTPSessionManager,
    )
    from mcp.server.transport_security import TransportSecuritySettings

    from gateway.mcp import build_server

    return (
        StreamableHTTPSessionManager,
        StreamableHTTPASGIApp,
        TransportSecuritySettings,
        build_server,
    )


class LazyMcp:
    """The /mcp endpoint: the SDK's ASGI app, built and started at the first call."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self._app: ASGIApp | None = None
        self._starting = asyncio.Lock()
        self._stop = asyncio.Event()
        self._running: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = self._app or await self._started()
        await app(scope, receive, send)

    async def _started(self) -> ASGIApp:
        async with self._starting:
            if self._app is not None:
                return self._app
            manager_class, app_class, settings_class, build_server = await asyncio.to_thread(_load)
            services = self.services
            manager = manager_class(
                app=build_server(services),
                stateless=True,
                json_response=True,
                security_settings=_security(services, settings_class),
                max_request_body_size=services.config.max_request_bytes,
            )
            ready = asyncio.Event()
            self._running = asyncio.create_task(self._run(manager, ready))
            waiting = asyncio.create_task(ready.wait())
            await asyncio.wait({waiting, self._running}, return_when=asyncio.FIRST_COMPLETED)
            if not ready.is_set():
                waiting.cancel()
                await self._running  # raises what stopped it from starting
            self._app = app_class(manager)
            return self._app

    async def _run(self, manager: Any, ready: asyncio.Event) -> None:
        # The manager's task group must be entered and left in one task: this one.
        async with manager.run():
            ready.set()
            await self._stop.wait()

    @asynccontextmanager
    async def lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            self._stop.set()
            if self._running is not None:
                await self._running
