"""The three tools of the contract as an MCP server (stdio and streamable HTTP).

Tools are listed with the contract's names, descriptions and schemas word
for word (``tools.json``). Every call goes through the same functions as the
HTTP API, in one transaction each; a refusal (invalid arguments, unknown
reference or wrong token, rate limit) is a tool result with ``isError`` and
a message that says what to fix, never a protocol error or a stack trace.

Both protocol eras are served: a 2026-07-28 request carries its version and
capabilities in ``_meta`` (no ``initialize``); a 2025 client opens with the
handshake. A 2026 client that declares the tasks extension
(``io.modelcontextprotocol/tasks``) gets a task handle from
``request_human_assistance`` and follows it with ``tasks/get``, ``tasks/update``
and ``tasks/cancel`` (``intake.tasks``), each carrying the access token.

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
from typing import Any, cast

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from pydantic import ConfigDict

from gateway import __version__, contract
from gateway.errors import ApiError, FieldProblem, InvalidRequest, NotFound, StorageError
from gateway.intake import filing, lookup, tasks
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
                    with services.db.read_only_rows() as conn:
                        return lookup.check_status(conn, reference, str(arguments["access_token"]))
                with services.db.transaction() as session:
                    return filing.add_to_request(services, session, arguments)

            try:
                result = await services.db.run(read_or_add)
            except NotFound:
                number = contract.number_from_reference(reference)
                shown = (
                    contract.reference_for(number)
                    if number is not None and number < 10**9
                    else None
                )
                await self._refused(filer, reference, shown, name)
                raise
            return contract.check_output(name, result)
        known = ", ".join(t["name"] for t in contract.tools())
        raise NotFound(f"unknown tool {name!r}; the tools are: {known}")

    async def _refused(self, filer: str, key: str, reference: str | None, what: str) -> None:
        """A wrong token: counted, rate-limited and audited as over the HTTP API."""
        limits = limits_for(self.services)
        # The right token is never refused; a wrong one hears 429 once over the limit.
        wait = limits.token_wait(f"mcp:{filer}", key)
        if wait:
            raise limits.wrong_tokens(key, wait) from None
        limits.token_failed(f"mcp:{filer}", key)
        await rejections_for(self.services).note(f"mcp:{filer}", reference, what)

    async def file_as_task(
        self, arguments: dict[str, Any], *, api_key_name: str | None, filer: str
    ) -> dict[str, Any]:
        """``request_human_assistance`` for a client of the tasks extension: the request
        and its task in one transaction, answered as a ``CreateTaskResult``."""
        services = self.services
        contract.validate_input(
            contract.REQUEST_TOOL, arguments, max_chars=services.config.max_field_chars
        )
        limits_for(services).check_filing(filer)

        def file() -> dict[str, Any]:
            with services.db.transaction() as session:
                filed = filing.file_request(services, session, arguments, api_key_name=api_key_name)
                contract.check_output(contract.REQUEST_TOOL, filed.result)
                return tasks.create_task(services, session, filed.result)

        return await services.db.run(file)

    async def task_call(self, method: str, params: dict[str, Any], *, filer: str) -> dict[str, Any]:
        """``tasks/get``, ``tasks/update`` or ``tasks/cancel``; raises ApiError on refusal."""
        services = self.services
        task_id = params.get("taskId")
        if not isinstance(task_id, str) or not task_id:
            raise InvalidRequest("taskId is required", [FieldProblem("taskId", "a task id")])
        given = params.get("_meta")
        meta: dict[str, Any] = given if isinstance(given, dict) else {}
        token = meta.get(tasks.TOKEN_META)
        if not isinstance(token, str) or not token:
            raise InvalidRequest(
                f"_meta.{tasks.TOKEN_META} is required: the request's access token",
                [FieldProblem(f"_meta.{tasks.TOKEN_META}", "the access token of the request")],
            )
        responses = params.get("inputResponses") or {}
        if not isinstance(responses, dict):
            raise InvalidRequest(
                "inputResponses must be an object", [FieldProblem("inputResponses", "an object")]
            )

        def work() -> dict[str, Any]:
            if method == "tasks/get":
                with services.db.read_only() as session:
                    return tasks.get_task(session, task_id, token)
            with services.db.transaction() as session:
                if method == "tasks/update":
                    added = meta.get(tasks.ADD_META)
                    tasks.update_task(services, session, task_id, token, responses, added)
                else:
                    tasks.cancel_task(services, session, task_id, token)
                return {}

        try:
            return await services.db.run(work)
        except NotFound:
            await self._refused(filer, task_id[:64], None, method)
            raise


def _declares_tasks(ctx: ServerRequestContext) -> bool:
    """A 2026-07-28 request whose client declares the tasks extension (never a 2025 one)."""
    meta = (ctx.params or {}).get("_meta")
    if not isinstance(meta, dict) or types.PROTOCOL_VERSION_META_KEY not in meta:
        return False
    capabilities = meta.get(types.CLIENT_CAPABILITIES_META_KEY)
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(extensions, dict) and tasks.EXTENSION in extensions


def _caller(ctx: ServerRequestContext) -> tuple[str | None, str]:
    state = getattr(ctx.request, "state", None)
    api_key_name: str | None = getattr(state, "api_key_name", None)
    return api_key_name, str(getattr(state, "filer", None) or STDIO_FILER)


class TaskParams(types.RequestParams):
    """The parameters of tasks/get, tasks/update and tasks/cancel (read raw below)."""

    model_config = ConfigDict(extra="allow")


def _check_routing_header(ctx: ServerRequestContext) -> None:
    """Over HTTP a tasks/* request names its task in ``Mcp-Name`` (SEP-2663), for load
    balancers to route on; a header that is not the body's task id is refused (-32020)."""
    headers = getattr(ctx.request, "headers", None)
    if headers is None:
        return  # stdio: no header layer
    task_id = (ctx.params or {}).get("taskId")
    if headers.get("mcp-name") != task_id:
        raise MCPError(
            code=types.HEADER_MISMATCH,
            message="Header mismatch: the Mcp-Name header must be the request's taskId",
        )


def _task_handler(calls: ToolCalls, method: str) -> Any:
    async def handle(ctx: ServerRequestContext, params: TaskParams) -> dict[str, Any]:
        _key, filer = _caller(ctx)
        _check_routing_header(ctx)
        try:
            return await calls.task_call(method, dict(ctx.params or {}), filer=filer)
        except ApiError as exc:
            raise MCPError(code=types.INVALID_PARAMS, message=_api_error_text(exc)) from None
        except StorageError:
            log.exception("MCP %s: storage error", method)
            raise MCPError(
                code=types.INTERNAL_ERROR,
                message="the gateway cannot reach its database; try again shortly",
            ) from None

    return handle


def build_server(services: Services) -> Server:
    calls = ToolCalls(services)

    async def on_list_tools(
        ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list())

    async def on_call_tool(
        ctx: ServerRequestContext, params: types.CallToolRequestParams
    ) -> types.CallToolResult | dict[str, Any]:
        api_key_name, filer = _caller(ctx)
        arguments = dict(params.arguments or {})
        try:
            if params.name == contract.REQUEST_TOOL and _declares_tasks(ctx):
                return await calls.file_as_task(arguments, api_key_name=api_key_name, filer=filer)
            data = await calls.call(params.name, arguments, api_key_name=api_key_name, filer=filer)
        except ApiError as exc:
            return tool_error(_api_error_text(exc))
        except StorageError:
            log.exception("MCP %s: storage error", params.name)
            return tool_error("the gateway cannot reach its database; try again shortly")
        except Exception:
            log.exception("MCP %s: unexpected error", params.name)
            return tool_error("internal error; it has been logged")
        return tool_result(data)

    server = Server(
        SERVER_NAME,
        version=__version__,
        on_list_tools=on_list_tools,
        # A task handle (resultType "task") is the extension's own result shape, which
        # the SDK's runner passes through as it is; its annotation knows only the core's.
        on_call_tool=cast(Any, on_call_tool),
    )
    # Advertised by server/discover; tasks exist at 2026-07-28 only (SEP-2663).
    server.extensions = {tasks.EXTENSION: {}}
    for method in ("tasks/get", "tasks/update", "tasks/cancel"):
        server.add_request_handler(method, TaskParams, _task_handler(calls, method))
    return server


async def serve_stdio(services: Services) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(services)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
