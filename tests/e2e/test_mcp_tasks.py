"""The MCP tasks extension (io.modelcontextprotocol/tasks) end to end over SMTP.

A raw 2026-07-28 client (tests/mcpwire, not the SDK) that declares the extension
files a request and gets a task handle; ``tasks/get`` answers ``working`` through
the lawyer's typed "Approved." and its correction window, then ``completed``
with the thread as ``check_request_status`` returns it. Between the two, the
gateway is restarted, and a second HTTP process (``hfa serve --role http`` on
the same database) answers ``tasks/get`` for the same task. ``tasks/update``
answers the lawyer's question as ``add_to_request``; ``tasks/cancel`` withdraws.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.roles import free_port, http_up, wait_until
from gateway import contract
from gateway.intake import tasks
from tests.conftest import (
    LAWYER,
    REPLY_DOMAIN,
    Running,
    SmtpSink,
    make_config,
    start_running,
    stop_running,
)
from tests.mailkit import reply_to, send
from tests.mcpwire import MODERN, TASKS, HttpWire, headers_for, meta, request, tool_data

ROOT = Path(__file__).resolve().parents[2]
WINDOW_SECONDS = 4
DECLARED: dict[str, Any] = {TASKS: {}}


def wire_of(running: Running) -> HttpWire:
    return HttpWire(running.http, "/mcp")


async def file_task(wire: HttpWire, **fields: Any) -> dict[str, Any]:
    arguments = {"category": "legal_review", "request": "May we sign the NDA?"} | fields
    answer = await wire.call(
        "tools/call",
        {"name": contract.REQUEST_TOOL, "arguments": arguments},
        extensions=DECLARED,
    )
    result: dict[str, Any] = answer["result"]
    assert result["resultType"] == "task", result
    return result


async def task_call(
    wire: HttpWire, method: str, handle: dict[str, Any], token: str | None = None, **params: Any
) -> dict[str, Any]:
    if token is None:
        token = handle["_meta"][tasks.REQUEST_META]["access_token"]
    return await wire.call(
        method,
        {"taskId": handle["taskId"], **params},
        extensions=DECLARED,
        extra_meta={tasks.TOKEN_META: token},
    )


async def get(wire: HttpWire, handle: dict[str, Any]) -> dict[str, Any]:
    answer = await task_call(wire, "tasks/get", handle)
    result: dict[str, Any] = answer["result"]
    assert result["resultType"] == "complete" and result["taskId"] == handle["taskId"]
    return result


@pytest.fixture
async def windowed(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(
        tmp_path, database_url=database_url, correction_window=f"{WINDOW_SECONDS}s"
    )
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


@contextmanager
def second_http_process(running: Running) -> Iterator[str]:
    """``hfa serve --role http`` on the same database, on a port of its own."""
    config = running.services.config
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update(
        PYTHONPATH=str(ROOT),
        HFA_DATA_DIR=str(config.data_dir),
        HFA_DATABASE_URL=config.database_url,
        HFA_HTTP_BIND=f"127.0.0.1:{port}",
        HFA_LAWYERS=LAWYER,
        # Unsigned replies: a decision is recorded on the reply address alone.
        HFA_WEAK_SENDER_DECISIONS="record",
        HFA_REPLY_DOMAIN=REPLY_DOMAIN,
        HFA_SECRET_KEYS=",".join(config.secret_keys),
        HFA_PUBLIC_URL=config.public_url,
    )
    log = config.data_dir / "second-http.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gateway", "serve", "--role", "http"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until("the second HTTP process", lambda: http_up(base), time.monotonic() + 60)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


async def test_a_task_works_through_the_window_a_restart_and_two_processes(
    windowed: Running, sink: SmtpSink
) -> None:
    running = windowed
    wire = wire_of(running)
    discovered = (await wire.call("server/discover"))["result"]
    assert TASKS in discovered["capabilities"]["extensions"]
    handle = await file_task(wire, urgency="blocking")
    assert handle["status"] == "working"
    assert handle["pollIntervalMs"] == tasks.POLL_INTERVAL_MS["blocking"]
    assert handle["ttlMs"] == int(running.services.config.task_ttl_seconds * 1000)
    filed = handle["_meta"][tasks.REQUEST_META]
    jsonschema_ok(filed)
    assert (await get(wire, handle))["status"] == "working"

    # A restart: the task is in the database, not in the process.
    config = running.services.config
    await stop_running(running)
    running = await start_running(config, sink)
    try:
        wire = wire_of(running)
        assert (await get(wire, handle))["status"] == "working"
        email = (await running.sink.wait_for(1))[0]
        await send(reply_to(email, "Approved."), running.smtp_port)
        await running.wait_status(
            filed, lambda s: any(t["kind"] == "pending_decision" for t in s["turns"])
        )
        # Working throughout the correction window, completed once the decision took effect.
        seen: list[tuple[datetime, str]] = []
        deadline = time.monotonic() + WINDOW_SECONDS + 20
        while time.monotonic() < deadline:
            state = await get(wire, handle)
            seen.append((datetime.now(UTC), state["status"]))
            if state["status"] != "working":
                break
            await asyncio.sleep(0.2)
        assert state["status"] == "completed", seen
        thread = state["result"]["structuredContent"]
        approval = next(t for t in thread["turns"] if t["kind"] == "approval")
        took_effect = datetime.fromisoformat(approval["at"])
        assert all(status == "working" for at, status in seen if at < took_effect)
        assert sum(1 for _, status in seen if status == "working") > WINDOW_SECONDS
        assert approval["decision"] == "approval" and thread["status"] == "answered"
        # The result is the thread exactly as check_request_status returns it.
        creds = {"reference": filed["reference"], "access_token": filed["access_token"]}
        status = tool_data(
            await wire.call("tools/call", {"name": contract.STATUS_TOOL, "arguments": creds})
        )
        assert thread == status
        assert state["result"]["isError"] is False

        # A second HTTP process on the same database answers for the same task.
        with second_http_process(running) as base:
            async with httpx.AsyncClient(base_url=base, timeout=30) as other:
                there = await get(HttpWire(other, "/mcp"), handle)
        assert there["status"] == "completed"
        assert there["result"]["structuredContent"] == thread
    finally:
        await stop_running(running)


def jsonschema_ok(filed: dict[str, Any]) -> None:
    import jsonschema

    jsonschema.validate(filed, contract.tool(contract.REQUEST_TOOL)["outputSchema"])


async def test_without_the_extension_the_tool_answers_as_always(running: Running) -> None:
    wire = wire_of(running)
    answer = await wire.call(
        "tools/call",
        {"name": contract.REQUEST_TOOL, "arguments": {"category": "legal_review", "request": "Q?"}},
    )
    assert tool_data(answer)["status"] == "recorded"


async def test_a_question_needs_input_and_tasks_update_answers_it(running: Running) -> None:
    wire = wire_of(running)
    handle = await file_task(wire)
    assert handle["pollIntervalMs"] == tasks.POLL_INTERVAL_MS["routine"]
    email = (await running.sink.wait_for(1))[0]
    await send(reply_to(email, "Which governing law does the NDA name?"), running.smtp_port)
    deadline = time.monotonic() + 20
    while (state := await get(wire, handle))["status"] == "working":
        assert time.monotonic() < deadline, state
        await asyncio.sleep(0.1)
    assert state["status"] == "input_required"
    ((key, asked),) = state["inputRequests"].items()
    assert asked["method"] == "elicitation/create"
    assert asked["params"]["message"].startswith("Which governing law")
    # A response to a key that is not outstanding is ignored; the outstanding one recorded.
    answer = {"action": "accept", "content": {"message": "English law."}}
    ack = await task_call(
        wire, "tasks/update", handle, inputResponses={key: answer, "question-99": answer}
    )
    assert ack["result"] == {"resultType": "complete", **_server_meta(ack)}
    state = await get(wire, handle)
    assert state["status"] == "working"
    # add_to_request at any time, in _meta.
    await wire.call(
        "tasks/update",
        {"taskId": handle["taskId"], "inputResponses": {}},
        extensions=DECLARED,
        extra_meta={
            tasks.TOKEN_META: handle["_meta"][tasks.REQUEST_META]["access_token"],
            tasks.ADD_META: {"message": "The counterparty is in Ohio.", "ticket": "LEG-9"},
        },
    )
    filed = handle["_meta"][tasks.REQUEST_META]
    thread = await running.status(filed)
    sent = [t for t in thread["turns"] if t["author"] == "sender" and t["kind"] == "message"]
    assert [t["body"] for t in sent] == ["English law.", "The counterparty is in Ohio."]
    assert sent[0]["in_reply_to"] == key and sent[1]["ticket"] == "LEG-9"


def _server_meta(answer: dict[str, Any]) -> dict[str, Any]:
    meta = answer["result"].get("_meta")
    return {"_meta": meta} if meta is not None else {}


async def test_cancel_withdraws_and_the_task_id_alone_opens_nothing(running: Running) -> None:
    wire = wire_of(running)
    handle = await file_task(wire)
    wrong = await task_call(wire, "tasks/get", handle, token="hfat_not-the-token")
    unknown = await task_call(wire, "tasks/get", {**handle, "taskId": "task_unknown"})
    assert wrong["error"]["code"] == unknown["error"]["code"] == -32602
    assert wrong["error"]["message"] == unknown["error"]["message"]
    assert tasks.NOT_FOUND_MESSAGE in wrong["error"]["message"]
    missing = await wire.call("tasks/get", {"taskId": handle["taskId"]}, extensions=DECLARED)
    assert tasks.TOKEN_META in missing["error"]["message"]
    ack = await task_call(wire, "tasks/cancel", handle)
    assert "error" not in ack
    assert (await get(wire, handle))["status"] == "cancelled"
    thread = await running.status(handle["_meta"][tasks.REQUEST_META])
    assert thread["status"] == "closed" and thread["turns"][-2]["kind"] == "withdrawal"
    # Cancelling again is acknowledged: cancellation is cooperative.
    assert "error" not in await task_call(wire, "tasks/cancel", handle)


async def test_the_task_id_must_be_the_routing_header_too(running: Running) -> None:
    wire = wire_of(running)
    handle = await file_task(wire)
    token = handle["_meta"][tasks.REQUEST_META]["access_token"]
    message = request(
        "tasks/get",
        {
            "taskId": handle["taskId"],
            "_meta": meta(extensions=DECLARED, extra={tasks.TOKEN_META: token}),
        },
    )
    headers = {**headers_for(message, MODERN), "Mcp-Name": "task_someone-else"}
    answer = await running.http.post("/mcp", content=json.dumps(message), headers=headers)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == -32020
    del headers["Mcp-Name"]
    answer = await running.http.post("/mcp", content=json.dumps(message), headers=headers)
    assert answer.json()["error"]["code"] == -32020


async def test_tasks_over_stdio(running: Running) -> None:
    if not running.services.db.is_sqlite:
        pytest.skip("stdio differs only in transport; run on SQLite to keep the suite fast")
    from tests.test_mcp_eras import stdio_server

    async with stdio_server(running) as wire:
        answer = await wire.call(
            "tools/call",
            {
                "name": contract.REQUEST_TOOL,
                "arguments": {"category": "legal_review", "request": "Q?"},
            },
            extensions=DECLARED,
        )
        handle = answer["result"]
        assert handle["resultType"] == "task"
        token = handle["_meta"][tasks.REQUEST_META]["access_token"]
        got = await wire.call(
            "tasks/get",
            {"taskId": handle["taskId"]},
            extensions=DECLARED,
            extra_meta={tasks.TOKEN_META: token},
        )
        assert got["result"]["status"] == "working"
