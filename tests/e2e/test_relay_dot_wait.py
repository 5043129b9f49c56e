"""RFC 5321 4.5.3.2.6 across a crash: once the message may have been sent, no worker sends
it again before the wait for the dot's answer is over, even after the sender is killed;
and a message the relay got whole is never sent again.

``hfa serve`` runs in a subprocess against a relay that takes the message and never
answers the dot; it is killed with SIGKILL once its note of holds says the kernel had
the dot. A second gateway on the same database, with a relay that now answers at once,
records the email as sent and never sends it again. With the note cut back to the dot
about to be written (as a kill between that note and the write leaves it), the second
gateway leaves the email alone until the wait is over, then sends it once more.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from aiosmtpd.smtp import SMTP, Envelope
from aiosmtpd.smtp import Session as SmtpSession
from sqlalchemy import select

from bench.roles import HFA, ROOT, free_port
from gateway.outbound import hold_log
from gateway.store.models import AuditEntry, OutboxItem
from tests.conftest import SmtpSink, make_config, start_running, stop_running

DOT_WAIT = 8.0
LEASE = 1.0


class Relay(SmtpSink):
    """Keeps each message it is given; answers its dot only while ``answering``."""

    answering: bool = False

    async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        self.received.append((envelope.mail_from or "", list(envelope.rcpt_tos), b""))
        self.arrived.set()
        while not self.answering:
            await asyncio.sleep(0.1)
        return "250 OK"


@pytest.fixture
async def relay() -> AsyncIterator[Relay]:
    handler = Relay()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(handler, hostname="relay.test", loop=loop), host="127.0.0.1", port=0
    )
    handler.port = server.sockets[0].getsockname()[1]
    yield handler
    handler.answering = True
    server.close()


def settings(database_url: str, relay_port: int) -> dict[str, str]:
    return {
        "database_url": database_url,
        "smtp_relay": f"127.0.0.1:{relay_port}",
        "smtp_relay_dot_timeout_seconds": str(DOT_WAIT),
        "lease_seconds": str(LEASE),
    }


async def dot_with_the_kernel(data_dir: Path) -> None:
    """Until the sender's note of holds says the kernel had the message's final dot."""
    folder = data_dir / hold_log.FOLDER
    for _ in range(300):
        if any(
            line.startswith("S ")
            for n in folder.glob("*.log")
            for line in n.read_text().splitlines()
        ):
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the sender never noted its dot as the kernel's")


def as_if_killed_before_the_write(data_dir: Path) -> None:
    """The dead sender's note cut back to the dot about to be written: the relay may then
    have the message or not, as far as a restart can tell."""
    for note in (data_dir / hold_log.FOLDER).glob("*.log"):
        kept = [line for line in note.read_text().splitlines() if not line.startswith("S ")]
        note.write_text("".join(f"{line}\n" for line in kept))


@pytest.mark.parametrize("killed", ["once_the_kernel_had_the_dot", "before_the_dot_was_written"])
async def test_a_killed_sender_waiting_for_the_dot_never_doubles_what_the_relay_got(
    tmp_path: Path, database_url: str, relay: Relay, killed: str
) -> None:
    data_dir = tmp_path / "var"
    config = make_config(data_dir, **settings(database_url, relay.port))
    http_port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env |= {f"HFA_{k.upper()}": v for k, v in config.raw.items() if v}
    env |= {"HFA_HTTP_BIND": f"127.0.0.1:{http_port}", "PYTHONPATH": str(ROOT)}
    log = (tmp_path / "serve.log").open("wb")
    sender = subprocess.Popen(
        [*HFA, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{http_port}") as http:
            for _ in range(300):
                try:
                    filed = await http.post(
                        "/v1/requests", json={"category": "legal_review", "request": "Clause 7?"}
                    )
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
            assert filed.status_code == 201, filed.text
        await relay.wait_for(1, timeout=30)  # the message is in, its dot unanswered
        await dot_with_the_kernel(data_dir)
    finally:
        os.killpg(sender.pid, signal.SIGKILL)
        sender.wait(timeout=10)
        log.close()
    if killed == "before_the_dot_was_written":
        as_if_killed_before_the_write(data_dir)

    relay.answering = True
    running = await start_running(config.with_overrides(http_bind="127.0.0.1:0"), relay)
    try:

        def email_row() -> OutboxItem:
            with running.services.db.read_only() as session:
                rows = list(
                    session.scalars(select(OutboxItem).where(OutboxItem.channel == "email"))
                )
            assert len(rows) == 1
            return rows[0]

        def relay_said() -> list[str]:
            with running.services.db.read_only() as session:
                entries = session.scalars(
                    select(AuditEntry).where(AuditEntry.event == "email.sent")
                )
                return [str(entry.details.get("relay")) for entry in entries]

        if killed == "once_the_kernel_had_the_dot":
            # The relay got the whole message: recorded as sent at the restart...
            for _ in range(100):
                if email_row().state == "sent":
                    break
                await asyncio.sleep(0.1)
            assert email_row().state == "sent"
            assert relay_said() == [hold_log.RECEIVED_DETAIL]
            # ...and never sent again, not even once the wait for its answer is over.
            await asyncio.sleep(DOT_WAIT + 4 * LEASE)
            assert len(relay.received) == 1
            return
        row = email_row()
        # What outlives the crash: the item is held past the wait for the dot's answer.
        assert row.lease_until is not None
        held_for = (row.lease_until.replace(tzinfo=UTC) - datetime.now(UTC)).total_seconds()
        assert held_for > DOT_WAIT / 2
        # Several lease periods pass with a worker running: nothing is sent again...
        await asyncio.sleep(4 * LEASE)
        assert len(relay.received) == 1
        assert email_row().state == "pending"
        # ...until the wait is over: then one more copy, and the item is sent.
        await relay.wait_for(2, timeout=DOT_WAIT + 30)
        for _ in range(100):
            if email_row().state == "sent":
                break
            await asyncio.sleep(0.1)
        assert email_row().state == "sent"
        assert len(relay.received) == 2
    finally:
        await stop_running(running)
