"""A thread made through a running gateway (HTTP in, SMTP out and in), then exported."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from gateway.evidence.export import Exported, export
from gateway.store.models import OutboxItem
from tests.conftest import Running
from tests.mailkit import reply_to, send


async def answered(running: Running, ask: str, answer: str, *, sent: int = 0) -> dict[str, Any]:
    """A request filed over HTTP, its email relayed, the lawyer's reply received over SMTP."""
    filed = await running.file(request=ask)
    emails = await running.sink.wait_for(sent + 1)
    await send(reply_to(emails[sent], answer), running.smtp_port)
    await running.wait_status(filed, lambda s: s["human_has_replied"])
    await running.sink.wait_for(sent + 2)  # the receipt
    return filed


def export_of(running: Running, reference: str, out: Path) -> Exported:
    services = running.services
    return export(services.config, services.db, services.clock, reference, out, pdf=False)


async def all_sent(running: Running) -> None:
    """Until every queued email and webhook of the gateway is delivered and recorded."""

    def waiting() -> int:
        with running.services.db.read_only() as session:
            query = (
                select(func.count()).select_from(OutboxItem).where(OutboxItem.state == "pending")
            )
            return int(session.scalar(query) or 0)

    for _ in range(200):
        if not waiting():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the outbox did not empty")


async def long_thread(running: Running, turns: int) -> dict[str, Any]:
    """A thread of at least ``turns`` turns: the lawyer asks, the agent answers, in turn."""
    before = len(running.sink.received)
    filed = await running.file(request="May we renew the ACME supply contract?")
    request_email = (await running.sink.wait_for(before + 1))[before]
    headers = {"Authorization": f"Bearer {filed['access_token']}"}
    round_ = 0
    while len((await running.status(filed))["turns"]) < turns:
        round_ += 1
        question = f"Question {round_}: what does clause {round_} say about the term?"
        await send(reply_to(request_email, question), running.smtp_port)
        await running.wait_status(filed, lambda s, n=round_: _asked(s, n))
        answer = {"message": f"Clause {round_} keeps the term at {round_} years."}
        response = await running.http.post(
            f"/v1/requests/{filed['reference']}/messages", json=answer, headers=headers
        )
        assert response.status_code in (200, 201), response.text
    await all_sent(running)
    return filed


def _asked(status: dict[str, Any], number: int) -> bool:
    return any(
        f"Question {number}:" in t["body"] for t in status["turns"] if t["author"] == "human"
    )
