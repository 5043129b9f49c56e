"""A thread's turns as server-sent events: every turn, then each new one as it is recorded."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.conftest import Running
from tests.http.httpkit import add, bearer


async def read_events(lines: AsyncIterator[str], count: int) -> list[dict[str, Any]]:
    """The next ``count`` events (comments skipped), as {id, event, data}."""
    events: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    async for line in lines:
        if not line:
            if "event" in current:
                events.append(current)
                if len(events) == count:
                    return events
            current = {}
        elif line.startswith(":") or line.startswith("retry:"):
            continue
        else:
            key, _, value = line.partition(": ")
            current[key] = json.loads(value) if key == "data" else value
    raise AssertionError(f"the stream ended after {events}")


async def test_the_event_stream_sends_the_turns_and_each_new_one(running: Running) -> None:
    filed = await running.file()
    url = f"/v1/requests/{filed['reference']}/events"
    async with running.http.stream("GET", url, headers=bearer(filed), timeout=30) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = response.aiter_lines()
        first = await read_events(lines, 2)
        assert [e["event"] for e in first] == ["turn", "status"]
        assert first[0]["id"] == "1" and first[0]["data"]["kind"] == "request"
        assert first[1]["data"]["status"] == "recorded"
        await add(running, filed, "The deadline moved to Friday.")
        (new,) = await asyncio.wait_for(read_events(lines, 1), 5)
        assert new["data"]["body"] == "The deadline moved to Friday." and new["id"] == "2"
    # Reconnecting with Last-Event-ID sends only what came after it.
    headers = {**bearer(filed), "Last-Event-ID": "1"}
    async with running.http.stream("GET", url, headers=headers, timeout=30) as response:
        resumed = await read_events(response.aiter_lines(), 2)
        assert resumed[0]["id"] == "2" and resumed[1]["event"] == "status"


async def test_the_event_stream_refuses_a_wrong_token_and_a_bad_last_event_id(
    running: Running,
) -> None:
    filed = await running.file()
    url = f"/v1/requests/{filed['reference']}/events"
    wrong = await running.http.get(url, headers={"Authorization": "Bearer hfat_wrong"})
    assert wrong.status_code == 404
    assert wrong.json()["error"]["message"] == "no request with this reference and access token"
    bad = await running.http.get(url, headers={**bearer(filed), "Last-Event-ID": "x1"})
    assert bad.status_code == 422 and bad.json()["error"]["details"][0]["field"] == "Last-Event-ID"


async def test_a_stream_whose_client_left_ends_at_the_next_keep_alive(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gateway.http import events
    from gateway.intake.waiting import waiting_for

    monkeypatch.setattr(events, "KEEPALIVE_SECONDS", 0.3)
    filed = await running.file()
    url = f"/v1/requests/{filed['reference']}/events"
    async with running.http.stream("GET", url, headers=bearer(filed), timeout=30) as response:
        await read_events(response.aiter_lines(), 2)
        assert waiting_for(running.services).waiting == 1
    # The client closed its connection: the stream notices it at the next keep-alive.
    deadline = time.monotonic() + 5
    while waiting_for(running.services).waiting and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert waiting_for(running.services).waiting == 0
