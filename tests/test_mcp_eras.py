"""MCP 2026-07-28 (stateless) and the 2025 handshake revisions, side by side.

A raw JSON-RPC client written from the 2026-07-28 specification (``tests/mcpwire``,
not the SDK) talks to a running gateway over streamable HTTP on loopback and to
``hfa mcp`` over stdio: ``server/discover``, the three tools listed and called
without ``initialize``, unsupported versions refused with the versions served, and
a client of the 2025 revisions still negotiating ``2025-11-25`` by handshake.
The official SDK's client is exercised by tests/test_mcp.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gateway import contract
from tests.conftest import LAWYER, REPLY_DOMAIN, Running
from tests.mailkit import reply_to, send
from tests.mcpwire import LEGACY, MODERN, HttpWire, StdioWire, headers_for, request, tool_data

ROOT = Path(__file__).resolve().parents[1]


def http_wire(running: Running) -> HttpWire:
    return HttpWire(running.http, "/mcp")


async def lists_the_contract(wire: HttpWire | StdioWire) -> None:
    answer = await wire.call("tools/list")
    tools = answer["result"]["tools"]
    assert answer["result"]["resultType"] == "complete"
    seed = contract.tools()
    assert [t["name"] for t in tools] == [t["name"] for t in seed]
    for tool, expected in zip(tools, seed, strict=True):
        assert tool["inputSchema"] == expected["inputSchema"]
        assert tool["outputSchema"] == expected["outputSchema"]


async def discovers(wire: HttpWire | StdioWire) -> dict[str, Any]:
    answer = await wire.call("server/discover")
    result: dict[str, Any] = answer["result"]
    assert result["resultType"] == "complete"
    assert MODERN in result["supportedVersions"]
    assert "tools" in result["capabilities"]
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "hfa-gateway"
    return result


async def files_reads_and_adds(
    wire: HttpWire | StdioWire, running: Running
) -> tuple[dict[str, Any], dict[str, Any]]:
    filed = tool_data(
        await wire.call(
            "tools/call",
            {
                "name": contract.REQUEST_TOOL,
                "arguments": {"category": "legal_review", "request": "Is clause 9 enforceable?"},
            },
        )
    )
    jsonschema.validate(filed, contract.tool(contract.REQUEST_TOOL)["outputSchema"])
    creds = {"reference": filed["reference"], "access_token": filed["access_token"]}
    status = tool_data(
        await wire.call("tools/call", {"name": contract.STATUS_TOOL, "arguments": creds})
    )
    assert status["reference"] == filed["reference"] and status["turns"][0]["kind"] == "request"
    added = tool_data(
        await wire.call(
            "tools/call",
            {"name": contract.ADD_TOOL, "arguments": {**creds, "message": "It is clause 9.2."}},
        )
    )
    assert added["status"] == "recorded"
    return filed, creds


async def test_a_raw_2026_client_discovers_lists_and_calls_without_initialize(
    running: Running,
) -> None:
    wire = http_wire(running)
    await discovers(wire)
    await lists_the_contract(wire)
    _filed, creds = await files_reads_and_adds(wire, running)
    # The lawyer's answer reaches the stateless client like any other.
    email = (await running.sink.wait_for(1))[0]
    await send(reply_to(email, "Approved."), running.smtp_port)
    for _ in range(200):
        status = tool_data(
            await wire.call("tools/call", {"name": contract.STATUS_TOOL, "arguments": creds})
        )
        if status["human_has_replied"]:
            break
        await asyncio.sleep(0.05)
    assert status["status"] == "answered"
    # No session was made: no Mcp-Session-Id on any answer.
    answer = await wire.post(request("tools/list", {"_meta": _modern_meta()}))
    assert "mcp-session-id" not in answer.headers


def _modern_meta() -> dict[str, Any]:
    from tests.mcpwire import meta

    return meta()


async def test_unsupported_versions_are_refused_naming_the_versions_served(
    running: Running,
) -> None:
    wire = http_wire(running)
    answer = await wire.call("tools/list", version="1900-01-01")
    assert answer["_http_status"] == 400
    assert answer["error"]["code"] == -32022
    assert answer["error"]["data"]["requested"] == "1900-01-01"
    assert MODERN in answer["error"]["data"]["supported"]
    # The headers and the body must agree (streamable-http, Server Validation): -32020.
    message = request("tools/list", {"_meta": _modern_meta()})
    message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2026-01-01"
    mismatched = await wire.post(message, version=MODERN)
    assert mismatched.status_code == 400
    assert mismatched.json()["error"]["code"] == -32020
    call = request(
        "tools/call",
        {"name": contract.STATUS_TOOL, "arguments": {}, "_meta": _modern_meta()},
    )
    headers = {**headers_for(call, MODERN), "Mcp-Name": contract.ADD_TOOL}
    renamed = await running.http.post("/mcp", content=json.dumps(call), headers=headers)
    assert renamed.status_code == 400
    assert renamed.json()["error"]["code"] == -32020


async def test_a_2025_client_still_negotiates_2025_11_25_by_handshake(running: Running) -> None:
    wire = http_wire(running)
    opened = await wire.post(
        request(
            "initialize",
            {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "legacy-client", "version": "1"},
            },
        ),
        version=None,
    )
    assert opened.status_code == 200, opened.text
    assert opened.json()["result"]["protocolVersion"] == LEGACY
    listed = await wire.post(request("tools/list"), version=LEGACY)
    assert [t["name"] for t in listed.json()["result"]["tools"]] == [
        t["name"] for t in contract.tools()
    ]


@asynccontextmanager
async def stdio_server(running: Running) -> AsyncIterator[StdioWire]:
    config = running.services.config
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "HFA_DATA_DIR": str(config.data_dir),
        "HFA_DATABASE_URL": config.database_url,
        "HFA_LAWYERS": LAWYER,
        "HFA_REPLY_DOMAIN": REPLY_DOMAIN,
        "HFA_SECRET_KEYS": ",".join(config.secret_keys),
        "HFA_PUBLIC_URL": config.public_url,
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "gateway",
        "mcp",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
        cwd=str(ROOT),
    )
    try:
        yield StdioWire(process)
    finally:
        # stdio shutdown: close the input stream and wait for the server to exit.
        assert process.stdin is not None
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 20)
        except TimeoutError:
            process.kill()
            await process.wait()
            raise


async def test_stdio_serves_the_2026_client_without_initialize(running: Running) -> None:
    if not running.services.db.is_sqlite:
        pytest.skip("stdio differs only in transport; run on SQLite to keep the suite fast")
    async with stdio_server(running) as wire:
        await discovers(wire)
        await lists_the_contract(wire)
        await files_reads_and_adds(wire, running)
        refused = await wire.call("tools/list", version="1900-01-01")
        assert refused["error"]["code"] == -32022
        assert MODERN in refused["error"]["data"]["supported"]


async def test_stdio_serves_a_2025_client_by_handshake(running: Running) -> None:
    if not running.services.db.is_sqlite:
        pytest.skip("stdio differs only in transport; run on SQLite to keep the suite fast")
    async with stdio_server(running) as wire:
        opened = await wire.send(
            request(
                "initialize",
                {
                    "protocolVersion": LEGACY,
                    "capabilities": {},
                    "clientInfo": {"name": "legacy-client", "version": "1"},
                },
            )
        )
        assert opened["result"]["protocolVersion"] == LEGACY
        assert process_write(wire, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = await wire.send(request("tools/list"))
        assert len(listed["result"]["tools"]) == len(contract.tools())


def process_write(wire: StdioWire, message: dict[str, Any]) -> bool:
    stdin = wire.process.stdin
    assert stdin is not None
    stdin.write(json.dumps(message).encode() + b"\n")
    return True
