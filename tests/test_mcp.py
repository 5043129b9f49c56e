"""The MCP tools over both transports, with the official client, against a running gateway."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import jsonschema
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from gateway import contract
from gateway.policy import POLICY_SCHEMA
from tests.conftest import LAWYER, REPLY_DOMAIN, Running, start_running, stop_running
from tests.mailkit import reply_to, send

ROOT = Path(__file__).resolve().parents[1]

Connect = Callable[[Running], AbstractAsyncContextManager[ClientSession]]


@asynccontextmanager
async def over_http(
    running: Running, headers: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    url = f"http://127.0.0.1:{running.gateway.http_port}/mcp"
    async with (
        httpx2.AsyncClient(headers=headers or {}, timeout=httpx2.Timeout(30)) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@asynccontextmanager
async def over_stdio(running: Running) -> AsyncIterator[ClientSession]:
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
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "gateway", "mcp"], env=env, cwd=str(ROOT)
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


TRANSPORTS = [pytest.param(over_http, id="http"), pytest.param(over_stdio, id="stdio")]


async def call_ok(session: ClientSession, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(name, arguments)
    assert not result.is_error, result.content
    data: dict[str, Any] | None = result.structured_content
    assert data is not None
    # The same object as JSON text, for clients that ignore structured content.
    assert json.loads(result.content[0].text) == data  # type: ignore[union-attr]
    jsonschema.Draft202012Validator(contract.tool(name)["outputSchema"]).validate(data)
    return data


async def call_error(session: ClientSession, name: str, arguments: dict[str, Any]) -> str:
    result = await session.call_tool(name, arguments)
    assert result.is_error, result
    text: str = result.content[0].text  # type: ignore[union-attr]
    assert "Traceback" not in text
    return text


@pytest.mark.parametrize("connect", TRANSPORTS)
async def test_mcp_tools_end_to_end(running: Running, connect: Connect) -> None:
    """One client session per transport: it lists, files, reads a reply, adds, and is refused."""
    if connect is over_stdio and not running.services.db.is_sqlite:
        pytest.skip("stdio differs only in transport; run on SQLite to keep the suite fast")
    async with connect(running) as session:
        await tools_are_the_contract_word_for_word(session)
        await file_read_a_lawyers_reply_and_add(running, session)
        await refusals_are_tool_errors_with_clear_messages(running, session)


async def tools_are_the_contract_word_for_word(session: ClientSession) -> None:
    listed = (await session.list_tools()).tools
    seed = contract.tools()
    assert [t.name for t in listed] == [t["name"] for t in seed]
    for tool, expected in zip(listed, seed, strict=True):
        assert tool.description == expected["description"]
        assert tool.input_schema == expected["inputSchema"]
        assert tool.output_schema == expected["outputSchema"]


async def file_read_a_lawyers_reply_and_add(running: Running, session: ClientSession) -> None:
    filed = await call_ok(
        session,
        contract.REQUEST_TOOL,
        {
            "category": "legal_review",
            "request": "May we use the MIT-licensed parser in our product?",
            "agent_name": "mcp-agent",
            "ticket": "LEG-7",
        },
    )
    assert filed["status"] == "recorded" and filed["reference"].startswith("HFA-")
    email = (await running.sink.wait_for(1))[0]
    assert filed["reference"] in str(email["Subject"])
    await send(reply_to(email, "Approved. MIT is fine; keep the notice."), running.smtp_port)
    creds = {"reference": filed["reference"], "access_token": filed["access_token"]}
    for _ in range(200):
        status = await call_ok(session, contract.STATUS_TOOL, creds)
        if status["human_has_replied"]:
            break
        await asyncio.sleep(0.05)
    assert status["status"] == "answered"
    human = [t for t in status["turns"] if t["author"] == "human"]
    assert human[0]["body"].startswith("Approved. MIT is fine")
    assert human[0]["decision"] == "approval"
    # "keep the notice" is an instruction: the approval's condition, not dropped.
    assert human[0]["conditions"] == ["MIT is fine; keep the notice."]
    # The approval policy, on the opening request turn (the status object is closed).
    policy = status["turns"][0]["policy"]
    assert policy["outcome"] == "approved_with_conditions"
    assert policy["rule"] == f"any of {LAWYER} veto"
    assert [a["who"] for a in policy["approvals"]] == [LAWYER]
    jsonschema.Draft202012Validator(POLICY_SCHEMA).validate(policy)

    added = await call_ok(
        session, contract.ADD_TOOL, {**creds, "message": "Thanks, we will keep it."}
    )
    assert added["status"] == "recorded" and added["thread_status"] == "answered"


async def refusals_are_tool_errors_with_clear_messages(
    running: Running, session: ClientSession
) -> None:
    filed = await running.file()
    unknown = await call_error(
        session, contract.STATUS_TOOL, {"reference": "HFA-99999", "access_token": "x" * 40}
    )
    wrong = await call_error(
        session,
        contract.ADD_TOOL,
        {"reference": filed["reference"], "access_token": "hfat_wrong", "message": "hi"},
    )
    # An unknown reference and a wrong token get the same answer.
    assert unknown == wrong == "no request with this reference and access token"
    # The failed check is audited like one over the HTTP API (throttled per client).
    from sqlalchemy import select

    from gateway.store.models import AuditEntry

    with running.services.db.read_only() as db_session:
        rejected = list(
            db_session.scalars(
                select(AuditEntry).where(AuditEntry.event == "request.token_rejected")
            )
        )
    assert rejected and rejected[0].actor.startswith("mcp:")
    assert rejected[0].reference == "HFA-99999"
    invalid = await call_error(
        session, contract.REQUEST_TOOL, {"category": "astrology", "request": ""}
    )
    assert "category must be one of" in invalid and "request must not be empty" in invalid
    missing = await call_error(session, contract.STATUS_TOOL, {"reference": "HFA-00001"})
    assert "access_token is required" in missing
    unknown_tool = await call_error(session, "delete_everything", {})
    assert "unknown tool 'delete_everything'" in unknown_tool


async def test_mcp_over_http_needs_the_api_key_when_keys_exist(tmp_path: Path, sink: Any) -> None:
    from tests.conftest import make_config

    running = await start_running(
        make_config(tmp_path, api_keys="mcp-agent:k-0123456789abcdef-mcp"), sink
    )
    try:
        url = f"http://127.0.0.1:{running.gateway.http_port}/mcp"
        refused = await running.http.post(
            url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Accept": "application/json, text/event-stream"},
        )
        assert refused.status_code == 401
        async with over_http(running, {"X-API-Key": "k-0123456789abcdef-mcp"}) as session:
            filed = await call_ok(
                session, contract.REQUEST_TOOL, {"category": "legal_review", "request": "Hi?"}
            )

        def recorded_key() -> str | None:
            from gateway.store.models import Request

            with running.services.db.read_only() as s:
                number = contract.number_from_reference(filed["reference"])
                row = s.get(Request, number)
                assert row is not None
                return row.api_key_name

        assert recorded_key() == "mcp-agent"
    finally:
        await stop_running(running)


async def test_mcp_route_answers_plain_json_rpc(running: Running) -> None:
    # What a minimal client without the SDK sends: one POST, a JSON answer.
    response = await running.http.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 7, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 200, response.text
    assert [t["name"] for t in response.json()["result"]["tools"]] == [
        t["name"] for t in contract.tools()
    ]
    # DNS rebinding: a page on another name that resolves to us is turned away.
    rebound = await running.http.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 8, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream", "Host": "evil.example"},
    )
    assert rebound.status_code == 421
    assert isinstance(running.http, httpx.AsyncClient)
