"""Waiting without polling, over loopback: the status long-poll and the thread's event stream.

A long-poll (``?wait=``) is held until what an agent acts on changes, answers at
once when the client's ``If-None-Match`` is already out of date, and wakes
within a second of a decision taking effect: never during its correction window.
The event stream sends every turn, then each new one as it is recorded.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from gateway.intake.waiting import mark_of
from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.http.httpkit import add, bearer
from tests.mailkit import reply_to, send

WINDOW_SECONDS = 4


async def long_poll(
    running: Running, filed: dict[str, Any], wait: float | str, **headers: str
) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = await running.http.get(
        f"/v1/requests/{filed['reference']}",
        params={"wait": str(wait)},
        headers={**bearer(filed), **headers},
        timeout=90,
    )
    return response, time.monotonic() - started


async def test_a_long_poll_is_held_until_the_thread_changes(running: Running) -> None:
    filed = await running.file()
    held = asyncio.create_task(long_poll(running, filed, 30))
    await asyncio.sleep(1.0)
    assert not held.done(), "the long-poll answered though nothing changed"
    await add(running, filed, "One more thing: the counterparty is in Ohio.")
    # Answered by the change, long before its own 30 s: a bounded wait, not a timing.
    response, _ = await asyncio.wait_for(held, 20)
    assert response.status_code == 200
    body = response.json()
    assert body["turns"][-1]["body"] == "One more thing: the counterparty is in Ohio."
    assert response.headers["etag"] == mark_of(body).etag


async def test_an_out_of_date_etag_is_answered_at_once(running: Running) -> None:
    filed = await running.file()
    first, _ = await long_poll(running, filed, 0)
    etag = first.headers["etag"]
    await add(running, filed, "An update.")
    # The client saw the state before the update: it hears of the update at once.
    response, took = await long_poll(running, filed, 30, **{"If-None-Match": etag})
    assert took < 1.0 and response.headers["etag"] != etag
    # With the current ETag it waits (here to its bound), then answers the same state.
    again, took = await long_poll(running, filed, 1, **{"If-None-Match": response.headers["etag"]})
    assert 0.9 <= took < 5 and again.headers["etag"] == response.headers["etag"]


async def test_wait_is_bounded_and_checked(tmp_path: Path, sink: SmtpSink) -> None:
    running = await start_running(make_config(tmp_path, wait_max_seconds="1"), sink)
    try:
        filed = await running.file()
        response, took = await long_poll(running, filed, 3600)
        assert response.status_code == 200 and 0.9 <= took < 5
        for bad in ("soon", "-1", "nan", "inf"):
            refused, _ = await long_poll(running, filed, bad)
            assert refused.status_code == 422, refused.text
            assert refused.json()["error"]["details"][0]["field"] == "wait"
        wrong, _ = await long_poll(running, {**filed, "access_token": "hfat_wrong"}, 5)
        assert wrong.status_code == 404
    finally:
        await stop_running(running)


@pytest.fixture
async def windowed(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(
        tmp_path, database_url=database_url, correction_window=f"{WINDOW_SECONDS}s"
    )
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


async def test_a_decision_wakes_the_long_poll_only_once_it_takes_effect(
    windowed: Running,
) -> None:
    running = windowed
    filed = await running.file(proposed_action="Sign the NDA as sent.")
    email = (await running.sink.wait_for(1))[0]
    await send(reply_to(email, "Approved."), running.smtp_port)
    pending = await running.wait_status(
        filed, lambda s: any(t["kind"] == "pending_decision" for t in s["turns"])
    )
    assert pending["status"] != "answered"
    # Woken when the decision takes effect (the window is 4 s), not at its own 30 s.
    response, _ = await asyncio.wait_for(long_poll(running, filed, 30), 25)
    body = response.json()
    assert body["status"] == "answered"
    approval = next(t for t in body["turns"] if t["kind"] == "approval")
    took_effect = datetime.fromisoformat(approval["at"])
    pending_at = datetime.fromisoformat(
        next(t for t in body["turns"] if t["kind"] == "pending_decision")["at"]
    )
    # Held through the window.
    assert (took_effect - pending_at).total_seconds() >= WINDOW_SECONDS - 0.5


async def test_stopping_the_server_ends_the_waits(tmp_path: Path, sink: SmtpSink) -> None:
    running = await start_running(make_config(tmp_path), sink)
    filed = await running.file()
    held = asyncio.create_task(long_poll(running, filed, 50))
    await asyncio.sleep(0.5)
    await running.gateway.stop()
    # Ended by the stop, long before its own 50 s: a bounded wait, not a timing.
    response, _ = await asyncio.wait_for(held, 30)
    assert response.status_code == 200
    await running.http.aclose()
    running.services.close()
