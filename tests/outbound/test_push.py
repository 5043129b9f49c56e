"""Answers pushed to reply_to: signed webhooks to a local receiver, email to the relay sink."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy import select
from standardwebhooks import Webhook
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gateway.app import bind_socket
from gateway.errors import PermanentDelivery, Refused
from gateway.outbound.webhooks import (
    WebhookSender,
    new_webhook_secret,
    pin,
    system_resolver,
)
from gateway.store.models import AuditEntry, OutboxItem
from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.mailkit import reply_to, send

OLD_SECRET = new_webhook_secret()
NEW_SECRET = new_webhook_secret()


@dataclass
class Receiver:
    """A webhook receiver on a loopback port; answers from ``script``, then 200."""

    port: int = 0
    calls: list[tuple[float, dict[str, str], bytes]] = field(default_factory=list)
    script: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    async def endpoint(self, request: Request) -> Response:
        body = await request.body()
        self.calls.append((asyncio.get_running_loop().time(), dict(request.headers), body))
        self.arrived.set()
        status, headers = self.script.pop(0) if self.script else (200, {})
        return Response(status_code=status, headers=headers)

    async def wait_for(self, count: int, timeout: float = 10.0) -> None:
        async def until() -> None:
            while len(self.calls) < count:
                self.arrived.clear()
                await self.arrived.wait()

        await asyncio.wait_for(until(), timeout)


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    recv = Receiver()
    app = Starlette(routes=[Route("/hook", recv.endpoint, methods=["POST"])])
    sock = bind_socket("127.0.0.1", 0)
    recv.port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    yield recv
    server.should_exit = True
    await task


@pytest.fixture
async def gateway(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(
        tmp_path,
        database_url=database_url,
        webhook_allow_private="1",
        webhook_secret=f"{NEW_SECRET},{OLD_SECRET}",
        receipts="0",
    )
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


async def file_and_answer(running: Running, reply_to_channel: str, answer: str) -> dict[str, Any]:
    before = len(running.sink.received)
    # The ask is whether to act, so a "No, ..." answer rejects the proposed action.
    filed = await running.file(
        request="May I sign the NDA?", reply_to=reply_to_channel, proposed_action="Sign the NDA."
    )
    email = (await running.sink.wait_for(before + 1))[before]
    await send(reply_to(email, answer), running.smtp_port)
    return filed


def outbox(running: Running, channel: str) -> list[OutboxItem]:
    with running.services.db.read_only() as session:
        rows = session.scalars(select(OutboxItem).where(OutboxItem.channel == channel))
        return list(rows)


async def wait_dead(running: Running, channel: str) -> OutboxItem:
    for _ in range(200):
        dead = [i for i in outbox(running, channel) if i.state == "dead"]
        if dead:
            return dead[0]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no dead {channel} item: {outbox(running, channel)}")


async def test_webhook_is_signed_and_carries_the_answer(
    gateway: Running, receiver: Receiver
) -> None:
    filed = await file_and_answer(gateway, receiver.url, "Approved. Standard terms.")
    await receiver.wait_for(1)
    _at, headers, body = receiver.calls[0]
    # Signed with every configured secret: receivers on the old or the new one both verify.
    for secret in (OLD_SECRET, NEW_SECRET):
        assert Webhook(secret).verify(body, headers) is not None
    with pytest.raises(Exception, match="No matching signature"):
        Webhook(new_webhook_secret()).verify(body, headers)
    event = json.loads(body)
    assert event["type"] == "request.human_turn"
    data = event["data"]
    assert data["reference"] == filed["reference"] and data["status"] == "answered"
    human = data["turns"][0]
    assert human["author"] == "human" and human["body"] == "Approved. Standard terms."
    assert human["decision"] == "approval"
    assert filed["access_token"] not in body.decode()
    thread = (await gateway.http.get(data["thread_url"])).json()
    assert thread["reference"] == filed["reference"] and thread["human_has_replied"]


async def test_webhook_retries_on_5xx_and_429_honouring_retry_after(
    gateway: Running, receiver: Receiver
) -> None:
    receiver.script = [(503, {}), (429, {"Retry-After": "1"})]
    await file_and_answer(gateway, receiver.url, "Approved.")
    await receiver.wait_for(3)
    ids = {headers["webhook-id"] for _at, headers, _body in receiver.calls}
    assert len(ids) == 1, "every retry carries the same webhook-id"
    for _ in range(100):
        items = outbox(gateway, "webhook")
        if items and items[0].state == "sent":
            break
        await asyncio.sleep(0.05)
    assert items[0].state == "sent" and items[0].attempts == 3
    # The 503 waited the backoff (HFA_OUTBOX_BACKOFF_SECONDS, 0.05 here), the 429 the
    # second its Retry-After asked for, though the backoff alone would be 0.1 s.
    with gateway.services.db.read_only() as session:
        deferred = session.scalars(
            select(AuditEntry)
            .where(AuditEntry.event == "webhook.deferred")
            .order_by(AuditEntry.seq)
        )
        assert [e.details["retry_in_seconds"] for e in deferred] == [0.05, 1.0]


async def test_410_stops_deliveries_to_that_url(gateway: Running, receiver: Receiver) -> None:
    receiver.script = [(410, {})]
    filed = await file_and_answer(gateway, receiver.url, "Approved.")
    item = await wait_dead(gateway, "webhook")
    assert item.last_error is not None and item.last_error.startswith("410")
    thread = await gateway.status(filed)
    assert any(t["kind"] == "webhook_failed" for t in thread["turns"])
    # A later answer on another request to the same URL is not sent.
    await file_and_answer(gateway, receiver.url, "Rejected.")
    for _ in range(100):
        if len([i for i in outbox(gateway, "webhook") if i.state == "dead"]) == 2:
            break
        await asyncio.sleep(0.05)
    assert len(receiver.calls) == 1
    with gateway.services.db.read_only() as session:
        from gateway.store.models import AuditEntry

        # In the order written: the second request's dead delivery is audited too.
        disabled = list(
            session.scalars(
                select(AuditEntry)
                .where(AuditEntry.event == "webhook.disabled")
                .order_by(AuditEntry.seq)
            )
        )
    assert disabled and disabled[0].reference == filed["reference"]
    assert disabled[0].details["to"].startswith("http://127.0.0.1")


async def test_redirects_are_not_followed(gateway: Running, receiver: Receiver) -> None:
    receiver.script = [(307, {"Location": "http://169.254.169.254/latest/meta-data"})]
    await file_and_answer(gateway, receiver.url, "Approved.")
    item = await wait_dead(gateway, "webhook")
    assert item.last_error is not None and "redirects are not followed" in item.last_error
    assert len(receiver.calls) == 1


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/x",  # plain http
        "https://127.0.0.1/x",  # loopback
        "https://localhost/x",  # a name that resolves to loopback
        "https://10.1.2.3/x",  # private
        "https://192.168.0.10/x",  # private
        "https://169.254.169.254/latest",  # link-local (cloud metadata)
        "https://100.64.0.1/x",  # CGNAT
        "https://[::1]/x",  # IPv6 loopback
        "https://[fd00::1]/x",  # IPv6 unique local
        "https://[::ffff:127.0.0.1]/x",  # IPv4-mapped loopback
        "https://0.0.0.0/x",  # unspecified
        "https://user:pw@hooks.example.com/x",  # credentials in the URL
    ],
)
async def test_ssrf_guard_refuses_non_public_targets(url: str) -> None:
    with pytest.raises(Refused):
        await pin(url, allow_private=False, resolve=system_resolver)


async def test_ssrf_guard_pins_the_checked_address() -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return ["93.184.215.14"]

    target = await pin("https://hooks.example.com/in?x=1", allow_private=False, resolve=resolve)
    assert target.url == "https://93.184.215.14:443/in?x=1"
    assert target.host == "hooks.example.com" and target.host_header == "hooks.example.com"

    async def rebinding(host: str, port: int) -> list[str]:
        return ["93.184.215.14", "127.0.0.1"]

    with pytest.raises(Refused, match=r"127\.0\.0\.1"):
        await pin("https://hooks.example.com/", allow_private=False, resolve=rebinding)


async def test_refused_webhook_is_dead_without_a_connection(
    tmp_path: Path, sink: SmtpSink, receiver: Receiver
) -> None:
    running = await start_running(make_config(tmp_path, receipts="0"), sink)
    try:
        target = f"https://127.0.0.1:{receiver.port}/hook"
        await file_and_answer(running, target, "Approved.")
        item = await wait_dead(running, "webhook")
        assert item.last_error is not None and "refused 127.0.0.1" in item.last_error
        assert receiver.calls == []
    finally:
        await stop_running(running)


async def test_sender_classifies_answers() -> None:
    sender = WebhookSender((OLD_SECRET,), timeout=1, allow_private=True)
    with pytest.raises(PermanentDelivery, match="410"):
        sender._judge("h", httpx.Response(410))


async def test_email_push_to_a_reply_to_address(gateway: Running) -> None:
    owner = "owner@agents.example"
    filed = await file_and_answer(gateway, owner, "No, use the 2025 template instead.")
    messages = await gateway.sink.wait_for(2)
    push = messages[1]
    assert push["To"] == owner
    assert filed["reference"] in str(push["Subject"])
    assert push["Reply-To"] is None and "reply+" not in push.as_string()
    part = push.get_body(preferencelist=("plain",))
    assert part is not None
    text = part.get_content()
    assert "No, use the 2025 template instead." in text
    assert "rejected the proposed action" in text and "answered" in text
    # Plain words and the local time, never an ISO timestamp.
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", text), text
    assert push["List-Id"] is not None
    assert "/v1/links/" in text
    assert filed["access_token"] not in push.as_string()


async def test_other_channels_are_kept_but_not_delivered(gateway: Running) -> None:
    filed = await file_and_answer(gateway, "slack:#legal", "Approved.")
    assert filed["reply_expected_via"] == "slack:#legal"
    await gateway.wait_status(filed, lambda t: t["human_has_replied"])
    assert outbox(gateway, "webhook") == [] and outbox(gateway, "push_email") == []


async def test_webhook_retries_stop_after_the_configured_period(tmp_path: Path) -> None:
    from datetime import timedelta

    from gateway.outbound.push import webhook_deliverer
    from gateway.services import build_services

    services = build_services(make_config(tmp_path, webhook_retry_seconds="60"))
    try:
        deliver = webhook_deliverer(services)
        old = OutboxItem(
            channel="webhook",
            target="https://hooks.example.com/x",
            message_id="msg_1",
            payload={"event": {}},
            created_at=services.clock.now() - timedelta(seconds=61),
        )
        with pytest.raises(PermanentDelivery, match="gave up after 60 seconds"):
            await deliver(services, old)
        # A secret was generated on first start, in the spec's whsec_ form.
        assert (tmp_path / "webhook_secret").read_text().startswith("whsec_")
    finally:
        services.close()


def test_a_push_email_subject_keeps_the_reference_when_the_headline_is_long(
    tmp_path: Path,
) -> None:
    from gateway.services import build_services
    from tests.lawyer_mails import file, push_email

    services = build_services(make_config(tmp_path))
    try:
        request_id = file(services, reply_to="ops@example.com")
        push = push_email(
            services,
            request_id,
            kind="conditional_approval",
            body="APPROVE\n\nNotes (optional):\nonly if the cap stays at 10k",
            data={
                "from": "counsel@lawfirm.example",
                "decision": "approval",
                "conditions": ["only if the cap stays at 10k"],
            },
        )
    finally:
        services.close()
    subject = str(push["Subject"])
    # The agent's mailbox sorts by reference: it must survive, and so must the news.
    assert subject.endswith(f"[HFA-{request_id:05d}]"), subject
    assert "counsel@lawfirm.example approved, WITH CONDITIONS," in subject
    assert len(subject) <= 78
