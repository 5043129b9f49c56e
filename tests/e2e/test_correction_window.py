"""The correction window end to end over SMTP: a typed decision waits, a tap acts at once.

Real sockets throughout: the gateway's SMTP and HTTP listeners, an aiosmtpd relay
sink, a webhook receiver; every agent interface (status, webhook, HumanLayer, A2H)
is watched while the lawyer corrects a typed "Approved." with the REJECT link.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from sqlalchemy import select

from gateway.services import build_services
from gateway.store.models import Request, Turn
from gateway.store.reading_models import PendingReading
from tests.conftest import (
    LAWYER,
    Running,
    SmtpSink,
    make_config,
    start_running,
    stop_running,
)
from tests.e2e.test_quick_replies import links_in
from tests.http.test_a2h import APPROVAL_SCHEMA, message
from tests.mailkit import quoted, reply_to, send
from tests.outbound.test_push import Receiver, receiver

__all__ = ["receiver"]

KEY = "window-agents-key-0123456789abcdef"
# The lawyer corrects a typed decision this long after sending it ...
CORRECTED_AFTER_SECONDS = 15
# ... inside a window that leaves a loaded machine time to record the correction
# (the default window is two minutes).
WINDOW_SECONDS = CORRECTED_AFTER_SECONDS + 5


@pytest.fixture
async def windowed(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(
        tmp_path,
        database_url=database_url,
        webhook_allow_private="1",
        api_keys=f"agents:{KEY}",
        correction_window=f"{WINDOW_SECONDS}s",
    )
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


def tapped(email: EmailMessage, keyword: str, message_id: str) -> EmailMessage:
    """The mail a client sends from an answer link, sent as it opened: nothing typed."""
    parts = urlsplit(links_in(email)[keyword])
    query = parse_qs(parts.query, keep_blank_values=True)
    msg = EmailMessage()
    msg["From"] = f"Dana Counsel <{LAWYER}>"
    msg["To"] = unquote(parts.path)
    msg["Subject"] = query["subject"][0]
    msg["Message-ID"] = message_id
    header = "On Tue, 1 Dec 2026 at 09:12, Human for AI wrote:"
    msg.set_content(f"{query['body'][0]}\n\n{header}\n\n{quoted(email)}\n")
    return msg


async def filed_with_email(running: Running, **fields: Any) -> tuple[dict[str, Any], EmailMessage]:
    """A request filed with the agents' key, and the request email it sent (the first)."""
    filed = await running.http.post("/v1/requests", json=fields, headers={"X-API-Key": KEY})
    assert filed.status_code == 201, filed.text
    [email] = await running.sink.wait_for(1)
    result: dict[str, Any] = filed.json()
    return result, email


def thread_of(running: Running, number: int) -> tuple[str, list[Turn]]:
    with running.services.db.read_only() as session:
        request = session.get(Request, number)
        assert request is not None
        turns = list(
            session.scalars(select(Turn).where(Turn.request_id == number).order_by(Turn.seq))
        )
        session.expunge_all()
        return request.status, turns


def plain(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    text: str = part.get_content()
    return text


def by_reference(running: Running) -> dict[str, EmailMessage]:
    return {str(m["Subject"]).rsplit("[", 1)[1].rstrip("]"): m for m in running.sink.messages()}


async def until(predicate: Any, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.1)


@dataclass
class Watch:
    """Every agent interface, polled every 0.5 s; what each showed, as it showed it."""

    running: Running
    plain: dict[str, Any]
    hl_call: str
    a2h_uid: str
    statuses: list[dict[str, Any]] = field(default_factory=list)
    humanlayer: list[dict[str, Any]] = field(default_factory=list)
    a2h: list[dict[str, Any]] = field(default_factory=list)
    polled_at: list[datetime] = field(default_factory=list)

    async def poll(self, stop: asyncio.Event) -> None:
        http, auth = self.running.http, {"Authorization": f"Bearer {KEY}"}
        while not stop.is_set():
            self.statuses.append(await self.running.status(self.plain))
            got = await http.get(f"/humanlayer/v1/function_calls/{self.hl_call}", headers=auth)
            self.humanlayer.append(got.json())
            got = await http.get(f"/a2h/v1alpha1/messages/{self.a2h_uid}", headers=auth)
            self.a2h.append(got.json())
            self.polled_at.append(datetime.now(UTC))
            await asyncio.sleep(0.5)

    def approvals_seen(self) -> list[Any]:
        seen: list[Any] = []
        for thread in self.statuses:
            for turn in thread["turns"]:
                if turn.get("decision") == "approval" or turn["kind"] in (
                    "approval",
                    "conditional_approval",
                ):
                    seen.append(turn)
        seen += [h for h in self.humanlayer if h["status"].get("approved") is True]
        seen += [
            a
            for a in self.a2h
            if isinstance(a["status"].get("response"), dict)
            and a["status"]["response"].get("approved") is True
        ]
        return seen


async def file_three(running: Running, hook: str) -> tuple[dict[str, Any], str, str]:
    """One request over each agent interface: the JSON API (webhook), HumanLayer, A2H."""
    http, key = running.http, {"X-API-Key": KEY}
    filed = await http.post(
        "/v1/requests",
        json={
            "category": "human_confirmation",
            "request": "May we pay EUR 62,000 to Northwind GmbH today?",
            "proposed_action": "Transfer EUR 62,000 to Northwind GmbH.",
            "urgency": "blocking",
            "reply_to": hook,
        },
        headers=key,
    )
    assert filed.status_code == 201, filed.text
    call = {
        "run_id": "run-1",
        "call_id": "wire-1",
        "spec": {
            "fn": "wire",
            "kwargs": {"eur": 62000},
            "channel": {"email": {"address": LAWYER}},
        },
        "status": None,
    }
    created = await http.post(
        "/humanlayer/v1/function_calls", json=call, headers={"Authorization": f"Bearer {KEY}"}
    )
    assert created.status_code == 200, created.text
    body = message("pay-1", "May I pay EUR 62,000 to Northwind today?", APPROVAL_SCHEMA)
    created = await http.post(
        "/a2h/v1alpha1/messages", json=body, headers={"Authorization": f"Bearer {KEY}"}
    )
    assert created.status_code == 201, created.text
    return filed.json(), "wire-1", "pay-1"


async def test_a_typed_approval_corrected_by_the_reject_link_is_never_seen_as_approved(
    windowed: Running, receiver: Receiver
) -> None:
    running = windowed
    filed, hl_call, a2h_uid = await file_three(running, receiver.url)
    await running.sink.wait_for(3)
    emails = by_reference(running)
    assert sorted(emails) == ["HFA-00001", "HFA-00002", "HFA-00003"]

    watch = Watch(running, filed, hl_call, a2h_uid)
    stop = asyncio.Event()
    watcher = asyncio.create_task(watch.poll(stop))
    try:
        loop = asyncio.get_running_loop()
        typed_at = loop.time()
        for email in emails.values():
            await send(reply_to(email, "Approved.", signature="Dana"), running.smtp_port)

        def held() -> bool:
            return all(
                any(t.kind == "pending_decision" for t in thread_of(running, n)[1])
                for n in (1, 2, 3)
            )

        await until(held)
        # Recorded at once, but every request still reads as waiting.
        for number in (1, 2, 3):
            status, turns = thread_of(running, number)
            assert status == "recorded"
            [turn] = [t for t in turns if t.author == "human"]
            assert turn.data["decision"] is None
            assert turn.data["pending"]["read_as"] == "approval"
            assert turn.data["because"]
        # The receipts go out at once: what was read, why, when, and the links.
        await running.sink.wait_for(6)
        receipts = [m for m in running.sink.messages() if "Recorded:" in str(m["Subject"])]
        assert len(receipts) == 3
        for receipt in receipts:
            text = " ".join(plain(receipt).split())
            assert 'because you wrote: "Approved' in text
            assert "NOT IN EFFECT YET. It takes effect on" in text
            assert set(links_in(receipt)) >= {"APPROVE", "REJECT"}

        # The lawyer sees the mistake a while later and taps REJECT in each request's email.
        await asyncio.sleep(max(0.0, typed_at + CORRECTED_AFTER_SECONDS - loop.time()))
        for reference, email in emails.items():
            await send(tapped(email, "REJECT", f"<tap-{reference}@law.example>"), running.smtp_port)

        def rejected() -> bool:
            return all(
                any(t.kind == "rejection" for t in thread_of(running, n)[1]) for n in (1, 2, 3)
            )

        await until(rejected)
        due = max(
            datetime.fromisoformat(t.data["pending"]["takes_effect_at"])
            for n in (1, 2, 3)
            for t in thread_of(running, n)[1]
            if t.kind == "pending_decision"
        )
        # Watched until well after the windows would have ended.
        while datetime.now(UTC) < due:
            await asyncio.sleep(0.5)
        await asyncio.sleep(2 * running.services.config.worker_poll_seconds + 2)
    finally:
        stop.set()
        await watcher

    # Watched from before the first reply until after the windows would have ended.
    assert len(watch.statuses) >= WINDOW_SECONDS and watch.polled_at[-1] > due
    assert watch.approvals_seen() == []
    final = await running.status(filed)
    assert final["status"] == "answered"
    assert [t["kind"] for t in final["turns"] if t["author"] == "human"] == [
        "pending_decision",
        "rejection",
    ]
    assert any(t["kind"] == "reading_replaced" for t in final["turns"])
    assert watch.humanlayer[-1]["status"]["approved"] is False
    assert watch.a2h[-1]["status"]["response"]["approved"] is False
    # The webhook got the rejection, once, and never an approval.
    await receiver.wait_for(1)
    events = [json.loads(body) for _t, _h, body in receiver.calls]
    humans = [t for e in events for t in e["data"]["turns"] if t["author"] == "human"]
    assert [t["kind"] for t in humans] == ["rejection"]
    with running.services.db.read_only() as session:
        outcomes = list(session.scalars(select(PendingReading.outcome)))
    assert outcomes == ["replaced", "replaced", "replaced"]


async def test_an_untouched_approve_tap_acts_at_once(windowed: Running, receiver: Receiver) -> None:
    running = windowed
    filed, email = await filed_with_email(
        running,
        category="human_confirmation",
        request="May we sign the ACME NDA today?",
        proposed_action="Sign and return the ACME NDA.",
        reply_to=receiver.url,
    )
    await send(tapped(email, "APPROVE", "<tap-approve@law.example>"), running.smtp_port)
    thread = await running.wait_status(filed, lambda t: t["status"] == "answered")
    [turn] = [t for t in thread["turns"] if t["author"] == "human"]
    assert turn["kind"] == "approval" and turn["decision"] == "approval"
    assert turn["read_from"] == "quick_reply" and turn["because"] == "APPROVE"
    await receiver.wait_for(1)
    with running.services.db.read_only() as session:
        assert list(session.scalars(select(PendingReading))) == []
    receipt = (await running.sink.wait_for(2))[1]
    text = " ".join(plain(receipt).split())
    assert 'because you wrote: "APPROVE" (the keyword of the answer link you used)' in text
    assert "It took effect at once" in text


async def test_a_held_reading_survives_a_restart_and_takes_effect_once_in_a_cluster(
    tmp_path: Path, sink: SmtpSink, database_url: str, receiver: Receiver
) -> None:
    config = make_config(
        tmp_path, database_url=database_url, webhook_allow_private="1", correction_window="3s"
    )
    first = await start_running(config, sink)
    try:
        filed = await first.file(reply_to=receiver.url, proposed_action="Sign the NDA.")
        [email] = await sink.wait_for(1)
        await send(reply_to(email, "Approved."), first.smtp_port)
        await until(lambda: any(t.kind == "pending_decision" for t in thread_of(first, 1)[1]))
    finally:
        # Stopped inside the window: nothing is left in memory to finish the job.
        await stop_running(first)
    probe = build_services(config)
    try:
        with probe.db.read_only() as session:
            [row] = session.scalars(select(PendingReading)).all()
            assert row.settled_at is None, "settled before the restart: nothing was proven"
    finally:
        probe.close()
    await asyncio.sleep(3.5)
    # Two gateways against the same database, both running the job that ends windows.
    second = await start_running(config, sink)
    third = await start_running(config, sink)
    try:
        await second.wait_status(filed, lambda t: t["status"] == "answered")
        await receiver.wait_for(1)
        # Time for the other gateway to push a second time, were it able to.
        await asyncio.sleep(2.0)
        thread = await third.status(filed)
    finally:
        await stop_running(third)
        await stop_running(second)
    humans = [t["kind"] for t in thread["turns"] if t["author"] == "human"]
    assert humans == ["pending_decision", "approval"]
    assert len(receiver.calls) == 1
    [event] = [json.loads(body) for _t, _h, body in receiver.calls]
    assert [t["kind"] for t in event["data"]["turns"] if t["author"] == "human"] == ["approval"]


async def test_a_french_promise_to_answer_later_is_held_and_its_receipt_is_all_french(
    windowed: Running,
) -> None:
    """ "Je regarde ça demain matin et je vous reviens." waits out the window like any typed
    reading; the receipt, in French, names it a promise that decides nothing."""
    running = windowed
    filed, email = await filed_with_email(
        running,
        category="legal_review",
        request="Is clause 7 (limitation of liability) acceptable for us as the supplier?",
        proposed_action="Sign the MSA as sent.",
    )
    text = "Je regarde ça demain matin et je vous reviens."
    await send(reply_to(email, text), running.smtp_port)
    thread = await running.wait_status(
        filed, lambda t: any(x["kind"] == "pending_decision" for x in t["turns"])
    )
    # Held: the agent is not told the request was answered, nor anything else yet.
    assert thread["status"] == "recorded" and not thread["human_has_replied"]
    [held] = [t for t in thread["turns"] if t["kind"] == "pending_decision"]
    assert held["pending"]["read_as"] == "acknowledgement"
    receipt = (await running.sink.wait_for(2))[1]
    said = " ".join(plain(receipt).split())
    assert receipt["Content-Language"] == "fr"
    assert "Vous avez dit I'M ON IT" in said
    assert f'"{text}" (une promesse de répondre plus tard, qui ne décide rien)' in said
    assert "Enregistrée comme : décision en attente" in said
    assert "pending decision" not in said and "qui décide)" not in said
