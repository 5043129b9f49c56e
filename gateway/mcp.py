"""The three tools of the contract as an MCP server (stdio and streamable HTTP).

Tools are listed with the contract's names, descriptions and schemas word
for word (``tools.json``). Every call goes through the same functions as the
HTTP API, in one transaction each; a refusal (invalid arguments, unknown
reference or wrong token, rate limit) is a tool result with ``isError`` and
a message that says what to fix, never a protocol error or a stack trace.

Transports:

- streamable HTTP at ``/mcp`` on the gateway (stateless, JSON responses);
  the ``X-API-Key`` header is checked by the same middleware as the HTTP API.
- stdio (``hfa mcp``), for desktop agents: the process opens the gateway's
  database directly with the same settings as ``hfa serve``. It files and
  reads requests itself; the running gateway's workers send the emails.
  Whoever can start it can already read the database, so it takes no key.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from gateway import __version__, contract
from gateway.errors import ApiError, NotFound, StorageError
from gateway.intake import filing, reading
from gateway.intake.ratelimit import limits_for
from gateway.intake.rejections import rejections_for
from gateway.services import Services

log = logging.getLogger(__name__)

SERVER_NAME = "hfa-gateway"
STDIO_FILER = "stdio"


def tool_list() -> list[types.Tool]:
    return [types.Tool.model_validate(t) for t in contract.tools()]


def tool_error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def tool_result(data: dict[str, Any]) -> types.CallToolResult:
    # Structured content for current clients, the same JSON as text for older ones.
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(data, ensure_ascii=False))],
        structured_content=data,
    )


def _api_error_text(exc: ApiError) -> str:
    if not exc.details or all(d.message in exc.message for d in exc.details):
        return exc.message
    return exc.message + " (" + "; ".join(f"{d.field}: {d.message}" for d in exc.details) + ")"


class ToolCalls:
    """Runs one tool call against the services; raises ApiError on refusal."""

    def __init__(self, services: Services) -> None:
        self.services = services

    async def call(
        self, name: str, arguments: dict[str, Any], *, api_key_name: str | None, filer: str
    ) -> dict[str, Any]:
        services = self.services
        limits = limits_for(services)
        max_chars = services.config.max_field_chars
        if name == contract.REQUEST_TOOL:
            contract.validate_input(name, arguments, max_chars=max_chars)
            limits.check_filing(filer)

            def file() -> dict[str, Any]:
                with services.db.transaction() as session:
                    filed = filing.file_request(
                        services, session, arguments, api_key_name=api_key_name
                    )
                    return filed.result

            return contract.check_output(name, await services.db.run(file))
        if name in (contract.STATUS_TOOL, contract.ADD_TOOL):
            contract.validate_input(name, arguments, max_chars=max_chars)
            reference = str(arguments["reference"])

            def read_or_add() -> dict[str, Any]:
                if name == contract.STATUS_TOOL:
                    with services.db.reading_rows() as conn:
                        return reading.check_status(conn, reference, str(arguments["access_token"]))
                with services.db.transaction() as session:
                    return filing.add_to_request(services, session, arguments)

            try:
                result = await services.db.run(read_or_add)
            except NotFound:
                # The right token is never refused; a wrong one hears 429 once over the limit.
                wait = limits.token_wait(f"mcp:{filer}", reference)
                if wait:
                    raise limits.wrong_tokens(reference, wait) from None
                limits.token_failed(f"mcp:{filer}", reference)
                number = contract.number_from_reference(reference)
                await rejections_for(services).note(
                    f"mcp:{filer}",
                    contract.reference_for(number)
                    if number is not None and number < 10**9
                    else None,
                    name,
                )
                raise
            return contract.check_output(name, result)
        known = ", ".join(t["name"] for t in contract.tools())
        raise NotFound(f"unknown tool {name!r}; the tools are: {known}")


def build_server(services: Services) -> Server:
    calls = ToolCalls(services)

    async def on_list_tools(
        ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list())

    async def on_call_tool(
        ctx: ServerRequestContext, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        request = ctx.request
        state = getattr(request, "state", None)
        api_key_name: str | None = getattr(state, "api_key_name", None)
        filer = str(getattr(state, "filer", None) or STDIO_FILER)
        try:
            data = await calls.call(
                params.name, dict(params.arguments or {}), api_key_name=api_key_name, filer=filer
            )
        except ApiError as exc:
            return tool_error(_api_error_text(exc))
        except StorageError:
            log.exception("MCP %s: storage error", params.name)
            return tool_error("the gateway cannot reach its database; try again shortly")
        except Exception:
            log.exception("MCP %s: unexpected error", params.name)
            return tool_error("internal error; it has been logged")
        return tool_result(data)

    return Server(
        SERVER_NAME,
        version=__version__,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


async def serve_stdio(services: Services) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(services)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
