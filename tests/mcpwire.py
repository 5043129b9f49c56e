"""A raw MCP client written from the 2026-07-28 specification, without the SDK.

Streamable HTTP (basic/transports/streamable-http): every message is one POST to
the MCP endpoint with ``Accept: application/json, text/event-stream``, the
``MCP-Protocol-Version`` header matching ``_meta``'s protocol version, ``Mcp-Method``
on every request and ``Mcp-Name`` where the method names something (a tool; a task
for the tasks extension). The protocol version, client identity and capabilities
travel in each request's ``_meta`` (basic/versioning); there is no ``initialize``.

stdio (basic/transports/stdio): one JSON-RPC message per line on the child's stdin
and stdout, the same ``_meta`` and no header layer.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import httpx

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
TASKS = "io.modelcontextprotocol/tasks"
CLIENT_INFO = {"name": "raw-spec-client", "version": "0.1"}
ACCEPT = "application/json, text/event-stream"

_ids = itertools.count(1)


def meta(
    version: str = MODERN,
    *,
    extensions: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    capabilities: dict[str, Any] = {}
    if extensions is not None:
        capabilities["extensions"] = extensions
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        **(extra or {}),
    }


def request(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params or {}}


def headers_for(message: dict[str, Any], version: str | None) -> dict[str, str]:
    headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
    if version is not None:
        headers["MCP-Protocol-Version"] = version
    method = message.get("method", "")
    headers["Mcp-Method"] = method
    params = message.get("params") or {}
    name = params.get("name") or params.get("taskId")
    if isinstance(name, str):
        headers["Mcp-Name"] = name
    return headers


class HttpWire:
    """POSTs one JSON-RPC message at a time to ``url``."""

    def __init__(self, client: httpx.AsyncClient, url: str) -> None:
        self.client = client
        self.url = url

    async def post(
        self, message: dict[str, Any], *, version: str | None = MODERN
    ) -> httpx.Response:
        return await self.client.post(
            self.url, content=json.dumps(message), headers=headers_for(message, version)
        )

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        version: str = MODERN,
        extensions: dict[str, Any] | None = None,
        extra_meta: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The JSON-RPC response object of one modern request."""
        body = {**(params or {}), "_meta": meta(version, extensions=extensions, extra=extra_meta)}
        response = await self.post(request(method, body), version=version)
        assert response.headers["content-type"].startswith("application/json"), response.text
        answer: dict[str, Any] = response.json()
        answer["_http_status"] = response.status_code
        return answer


class StdioWire:
    """Newline-delimited JSON-RPC over a child process's stdin and stdout."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    async def send(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()
        while True:
            line = await asyncio.wait_for(self.process.stdout.readline(), 30)
            assert line, "the server closed its stdout"
            answer: dict[str, Any] = json.loads(line)
            if answer.get("id") == message["id"]:
                return answer

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        version: str = MODERN,
        extensions: dict[str, Any] | None = None,
        extra_meta: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        body = {**(params or {}), "_meta": meta(version, extensions=extensions, extra=extra_meta)}
        return await self.send(request(method, body))


def tool_data(answer: dict[str, Any]) -> dict[str, Any]:
    """The structured content of a complete, successful tools/call result."""
    assert "result" in answer, answer
    result = answer["result"]
    assert result.get("resultType", "complete") == "complete", result
    assert not result.get("isError"), result
    data: dict[str, Any] = result["structuredContent"]
    assert json.loads(result["content"][0]["text"]) == data
    return data
