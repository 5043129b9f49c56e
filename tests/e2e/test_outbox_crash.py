"""A kill -9 during a burst strands no email the relay never received, and doubles none.

``hfa serve`` runs in a subprocess against a real SMTP relay (aiosmtpd, on loopback, in
this test's loop); a burst of filings is cut three times by SIGKILL of the gateway's
process group while their request emails go out, and the gateway is started again on
the same database. Within 60 s of the last start every request email on record has
reached the relay, and none twice: the hold that keeps an email from being sent again
while the relay may still answer it (RFC 5321 4.5.3.2.6) is taken only once the rest of
the message is out, before its final dot, so what the relay cannot have had goes again
once its lease lapses (HFA_LEASE_SECONDS, 20 s by default); an email whose dot the relay
got is recorded as sent at the restart, and still relayed once after its hold would have
ended.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
from aiosmtpd.smtp import SMTP
from sqlalchemy import create_engine, text

from bench import kills
from bench.roles import ROOT, rebindable_port
from tests.conftest import make_config

KILLS = 3
BURST = 40
DRAIN_SECONDS = 60.0
# The wait for the relay's answer to a dot (600 s as deployed), shortened so that the
# holds a kill leaves end within the test: an email held then must not go out again.
DOT_TIMEOUT_SECONDS = 10
LEASE_SECONDS = 20  # the default
# How long the relay takes to answer DATA.
DATA_PAUSE = 0.5


class Relay(kills.Relay):
    """Keeps the Message-ID of every message it takes (answered 250 at once), and counts
    the DATA commands it was sent."""

    def __init__(self) -> None:
        super().__init__()
        self.port = 0
        # DATA commands received: the gateway may now hold those messages.
        self.data_started = 0

    def data_started_count(self) -> int:
        return self.data_started

    def received_count(self) -> int:
        return len(self.message_ids)


class SlowToStartData(SMTP):
    """A busy relay: it takes a while to answer DATA with 354. A gateway killed meanwhile
    has sent no message yet, and must not hold it as if the relay might have it."""

    async def smtp_DATA(self, arg: str) -> None:
        self.event_handler.data_started += 1
        await asyncio.sleep(DATA_PAUSE)
        await super().smtp_DATA(arg)


@pytest.fixture
async def relay() -> AsyncIterator[Relay]:
    handler = Relay()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SlowToStartData(handler, hostname="relay.test", loop=loop),
        host="127.0.0.1",
        port=0,
    )
    handler.port = server.sockets[0].getsockname()[1]
    yield handler
    server.close()


async def until(count: Callable[[], int], wanted: int, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while count() < wanted:
        assert time.monotonic() < deadline, "the relay was sent nothing"
        await asyncio.sleep(0.01)


def why_not_relayed(database_url: str, message_ids: set[str], log: Path) -> str:
    """What the database and the gateway's log say of emails not relayed in time: the
    rows' state, hold and last error, and the log's warnings and errors."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            query = text(
                "SELECT id, state, attempts, lease_until, next_attempt_at, last_error"
                " FROM outbox WHERE message_id = :message_id"
            )
            rows = [
                list(row)
                for message_id in sorted(message_ids)
                for row in connection.execute(query, {"message_id": message_id})
            ]
    finally:
        engine.dispose()
    said = [
        line
        for line in log.read_text(errors="replace").splitlines()
        if " WARNING " in line or " ERROR " in line
    ]
    return f"rows {rows}; the gateway's warnings and errors: {said[-20:]}"


def request_emails(database_url: str) -> set[str]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            query = text(
                "SELECT message_id FROM outbox WHERE channel='email' AND purpose='request'"
            )
            return {str(row[0]).strip() for row in connection.execute(query)}
    finally:
        engine.dispose()


async def test_kills_during_a_burst_strand_no_email_and_double_none(
    tmp_path: Path, database_url: str, relay: Relay
) -> None:
    data_dir = tmp_path / "var"
    config = make_config(data_dir, database_url=database_url, smtp_relay=f"127.0.0.1:{relay.port}")
    http_port = rebindable_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env |= {f"HFA_{k.upper()}": v for k, v in config.raw.items() if v}
    env |= {
        "HFA_HTTP_BIND": f"127.0.0.1:{http_port}",
        "HFA_RATE_LIMIT_PER_MINUTE": "1000000",
        "HFA_WORKER_POLL_SECONDS": "0.5",
        "HFA_SMTP_RELAY_DOT_TIMEOUT_SECONDS": str(DOT_TIMEOUT_SECONDS),
        "PYTHONPATH": str(ROOT),
    }
    env.pop("HFA_LEASE_SECONDS", None)  # the default lease, as deployed
    acknowledged = 0
    with (tmp_path / "serve.log").open("wb") as log:
        gateway = kills.Gateway(env, log)
        try:
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{http_port}", timeout=10
            ) as http:
                for kill in range(KILLS):
                    gateway.start()
                    await kills.up(http)
                    started_before = relay.data_started
                    received_before = len(relay.message_ids)
                    burst = [asyncio.create_task(kills.file(http)) for _ in range(BURST)]
                    # Killed once the relay is taking this burst's emails, while the next
                    # ones wait for the relay's 354.
                    # Killed while the relay is taking this burst's emails: twice once it
                    # has been sent DATA for some (none of their dots is out), once it has
                    # taken some (others may be held: it may have them).
                    if kill < KILLS - 1:
                        await until(relay.data_started_count, started_before + 5)
                    else:
                        await until(relay.received_count, received_before + 5)
                    gateway.kill()
                    last_kill = time.monotonic()
                    acknowledged += sum(await asyncio.gather(*burst))
                gateway.start()
                started = time.monotonic()
                await kills.up(http)
                wanted = request_emails(config.database_url)
                while time.monotonic() - started < DRAIN_SECONDS:
                    if wanted <= set(relay.message_ids):
                        break
                    await asyncio.sleep(0.2)
                drained = time.monotonic() - started
                missing = wanted - set(relay.message_ids)
                # Past the end of every hold the last kill left, and a poll after it.
                held_until = last_kill + DOT_TIMEOUT_SECONDS + LEASE_SECONDS + 3
                await asyncio.sleep(max(0.0, held_until - time.monotonic()))
        finally:
            gateway.kill()
    doubled = {m: n for m, n in Counter(relay.message_ids).items() if n > 1}
    assert len(wanted) >= acknowledged > KILLS * 5, (len(wanted), acknowledged)
    assert not missing, (
        f"{len(missing)} of {len(wanted)} request emails not relayed in 60 s: "
        + why_not_relayed(config.database_url, missing, tmp_path / "serve.log")
    )
    assert not doubled, doubled
    print(
        f"{len(wanted)} request emails, {acknowledged} acknowledged: all relayed {drained:.1f} s after the last start"
    )
