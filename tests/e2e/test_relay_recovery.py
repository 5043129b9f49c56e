"""A receiver that answers again is used within a minute, not at the next backoff.

A real gateway on loopback sends through a real SMTP relay (aiosmtpd) and to real
webhook receivers (uvicorn) that refuse, then answer. The backoff is ten minutes;
the gateway's clock is moved by hand, so "within a minute" is checked as state: how
far the clock moved before everything waiting went out, and how many waiting
deliveries the first success released.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest
import uvicorn
from sqlalchemy import select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gateway.app import bind_socket
from gateway.clock import FrozenClock
from gateway.outbound.retry import PROBE_SECONDS
from gateway.store.models import OutboxItem
from tests.conftest import Running, SmtpSink, make_config, stop_running
from tests.mailkit import reply_to, send
from tests.test_scheduler import START, start_clocked

# Far longer than the probe: without the release, what waits goes out only after this.
BACKOFF = {"outbox_backoff_seconds": "600", "outbox_max_backoff_seconds": "1800"}
# Leases are renewed every third of this in real time: never while a test runs, so no
# renewal that lands just after a failure was recorded holds a row past the frozen clock.
LEASE = {"lease_seconds": "3600"}
REFUSED_MAIL = "451 4.3.0 Relay busy, try later"
RELEASED = "answers again; {} waiting deliveries released"


@dataclass
class Receiver:
    """A webhook receiver on its own loopback port: answers ``status`` to every call."""

    status: int = 503
    port: int = 0
    answered: list[int] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    async def endpoint(self, request: Request) -> Response:
        await request.body()
        self.answered.append(self.status)
        return Response(status_code=self.status)


@pytest.fixture
async def receivers() -> AsyncIterator[tuple[Receiver, Receiver]]:
    pair = (Receiver(), Receiver())
    servers = []
    for recv in pair:
        app = Starlette(routes=[Route("/hook", recv.endpoint, methods=["POST"])])
        sock = bind_socket("127.0.0.1", 0)
        recv.port = sock.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        servers.append((server, asyncio.create_task(server.serve(sockets=[sock]))))
    for server, _task in servers:
        while not server.started:
            await asyncio.sleep(0.01)
    yield pair
    for server, task in servers:
        server.should_exit = True
        await task


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(START)


@pytest.fixture
async def gateway(
    tmp_path: Path, sink: SmtpSink, database_url: str, clock: FrozenClock
) -> AsyncIterator[Running]:
    config = make_config(
        tmp_path,
        database_url=database_url,
        webhook_allow_private="1",
        receipts="0",
        **BACKOFF,
        **LEASE,
    )
    running = await start_clocked(config, sink, clock)
    yield running
    await stop_running(running)


def outbox(running: Running, channel: str) -> list[OutboxItem]:
    with running.services.db.read_only() as session:
        query = select(OutboxItem).where(OutboxItem.channel == channel).order_by(OutboxItem.id)
        return list(session.scalars(query))


async def settle(
    running: Running, channel: str, done: Callable[[list[OutboxItem]], bool]
) -> list[OutboxItem]:
    """The channel's rows once ``done`` holds for them (the worker wakes on each look)."""
    for _ in range(400):
        rows = outbox(running, channel)
        if done(rows):
            return rows
        running.services.outbox_ready.set()
        await asyncio.sleep(0.05)
    raise AssertionError([(r.id, r.target, r.state, r.attempts, r.last_error) for r in rows])


def waits(running: Running, rows: list[OutboxItem]) -> list[float]:
    now = running.services.clock.now()
    return sorted((r.next_attempt_at - now).total_seconds() for r in rows)


def probing(running: Running, rows: list[OutboxItem]) -> int:
    """How many of ``rows`` retry within a minute: the probes of their receiver."""
    return sum(1 for wait in waits(running, rows) if wait <= PROBE_SECONDS)


def all_tried_once(count: int) -> Callable[[list[OutboxItem]], bool]:
    return lambda rows: (
        len(rows) == count
        and all(r.attempts == 1 and r.last_error and r.lease_until is None for r in rows)
    )


async def test_relay_that_answers_again_gets_every_waiting_email_within_a_minute(
    gateway: Running, clock: FrozenClock, caplog: pytest.LogCaptureFixture
) -> None:
    gateway.sink.answer = REFUSED_MAIL
    for n in range(3):
        await gateway.file(request=f"Please review clause {n}.")
    rows = await settle(gateway, "email", all_tried_once(3))
    # A waiting email probes the relay within a minute (two, when two failures were
    # recorded at once); the others wait their backoff.
    probes = probing(gateway, rows)
    assert probes in (1, 2) and waits(gateway, rows)[-1] == 600

    gateway.sink.answer = None
    caplog.set_level(logging.INFO, logger="gateway.outbound.retry")
    clock.advance(timedelta(seconds=PROBE_SECONDS))
    rows = await settle(gateway, "email", lambda rows: all(r.state == "sent" for r in rows))
    # The probe went out; its success released the others, ten minutes early.
    assert len(gateway.sink.received) == 3
    assert [r.attempts for r in rows] == [2, 2, 2]
    assert f"the relay {RELEASED.format(3 - probes)}" in caplog.text


async def answer(running: Running, reply_url: str) -> None:
    """File a request whose answers are pushed to ``reply_url``, and answer it by email."""
    before = len(running.sink.received)
    await running.file(request="May I sign the NDA?", reply_to=reply_url)
    email = (await running.sink.wait_for(before + 1))[before]
    await send(reply_to(email, "Approved."), running.smtp_port)


async def test_webhook_host_that_answers_again_gets_its_waiting_webhooks_and_only_its(
    gateway: Running,
    clock: FrozenClock,
    receivers: tuple[Receiver, Receiver],
    caplog: pytest.LogCaptureFixture,
) -> None:
    back, still_down = receivers
    for url in [back.url] * 3 + [still_down.url] * 2:
        await answer(gateway, url)
    rows = await settle(gateway, "webhook", all_tried_once(5))
    on_back = [r for r in rows if r.target == back.url]
    on_down = [r for r in rows if r.target == still_down.url]
    # Each host has its own probe within a minute; the rest wait their backoff.
    back_probes, down_probes = probing(gateway, on_back), probing(gateway, on_down)
    assert back_probes in (1, 2) and waits(gateway, on_back)[-1] == 600
    assert down_probes in (1, 2) and waits(gateway, on_down)[0] == PROBE_SECONDS

    back.status = 200
    caplog.set_level(logging.INFO, logger="gateway.outbound.retry")
    clock.advance(timedelta(seconds=PROBE_SECONDS))
    rows = await settle(
        gateway,
        "webhook",
        lambda rows: (
            all(r.state == "sent" for r in rows if r.target == back.url)
            and sum(r.attempts for r in rows if r.target == still_down.url) == 2 + down_probes
            and all(r.lease_until is None for r in rows)
        ),
    )
    # The host that answers got its three, ten minutes early: the probe and those it
    # released. The other host's probe was refused again, and what waits for it was
    # not released by a success elsewhere.
    assert back.answered == [503] * 3 + [200] * 3
    assert still_down.answered == [503] * (2 + down_probes)
    released = f"127.0.0.1:{back.port} {RELEASED.format(3 - back_probes)}"
    assert released in caplog.text and caplog.text.count("answers again") == 1
    on_down = [r for r in rows if r.target == still_down.url]
    assert all(r.state == "pending" for r in on_down)
    if down_probes == 1:
        assert waits(gateway, on_down)[-1] == 600 - PROBE_SECONDS
