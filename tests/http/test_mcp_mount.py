"""/mcp loads the MCP SDK with its first call, and stops it with the server."""

from __future__ import annotations

import subprocess
import sys

import httpx
from starlette.applications import Starlette
from starlette.routing import Route

from gateway import contract
from gateway.http.mcp_mount import LazyMcp
from gateway.services import Services


def test_starting_the_gateway_does_not_import_the_mcp_sdk() -> None:
    # Some 30 MB of every process (the listeners', the workers'), for a route most
    # deployments never call. A fresh interpreter: this one has imported it already.
    code = (
        "import sys, gateway.cli, gateway.app\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'pydantic'))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"


async def test_the_first_call_starts_the_sdk_and_the_server_stopping_ends_it(
    services: Services,
) -> None:
    mcp = LazyMcp(services)
    app = Starlette(routes=[Route("/mcp", endpoint=mcp, methods=["GET", "POST", "DELETE"])])
    transport = httpx.ASGITransport(app=app)
    async with mcp.lifespan(app):
        assert mcp._app is None and mcp._running is None
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            for call in (1, 2):
                response = await client.post(
                    "/mcp",
                    json={"jsonrpc": "2.0", "id": call, "method": "tools/list"},
                    headers={"Accept": "application/json, text/event-stream"},
                )
                assert response.status_code == 200, response.text
                tools = [t["name"] for t in response.json()["result"]["tools"]]
                assert tools == [t["name"] for t in contract.tools()]
        running = mcp._running
        assert running is not None and not running.done()
    assert running.done() and running.exception() is None
