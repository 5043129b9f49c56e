"""examples/langgraph_approval.py against a running gateway: the webhook resumes the graph.

The gateway runs on loopback with its SMTP listener and a relay sink; the example's
webhook receiver runs on another loopback port. The graph stops at its interrupt, the
lawyer answers the request email over SMTP, and the gateway's signed push resumes it.
No model is called: the graph's nodes are plain functions.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from uvicorn.config import Config as UvicornConfig

from gateway.outbound.webhooks import new_webhook_secret
from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.mailkit import reply_to, send

langgraph_approval = pytest.importorskip(
    "examples.langgraph_approval", reason="the examples extra: pip install -e '.[examples]'"
)

SECRET = new_webhook_secret()
MATTER = {
    "request": "May we sign the NDA with Northwind as sent?",
    "proposed_action": "Sign the Northwind NDA (v3, as sent on Monday).",
}


@dataclass
class Resumed:
    finals: dict[str, dict[str, Any]] = field(default_factory=dict)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def done(self, reference: str, final: dict[str, Any]) -> None:
        self.finals[reference] = final
        self.arrived.set()


@pytest.fixture
async def gateway(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(
        tmp_path, database_url=database_url, webhook_allow_private="1", webhook_secret=SECRET
    )
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


async def serve(app: Any) -> tuple[uvicorn.Server, asyncio.Task[None], int]:
    config = UvicornConfig(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    sock = config.bind_socket()
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(500):
        if server.started:
            break
        await asyncio.sleep(0.01)
    return server, task, int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        ("Approved.", "carried out: Sign the Northwind NDA"),
        ("No, do not sign it.", "not carried out (rejection)"),
    ],
)
async def test_the_gateways_webhook_resumes_the_interrupted_graph(
    gateway: Running, answer: str, outcome: str
) -> None:
    resumed = Resumed()
    base = f"http://127.0.0.1:{gateway.gateway.http_port}"
    with httpx.Client(base_url=base, timeout=30) as client:
        # The receiver's port is known once bound; the graph files with its URL.
        holder: dict[str, Any] = {}

        async def app(scope: Any, receive: Any, send_: Any) -> None:
            await holder["app"](scope, receive, send_)

        server, task, port = await serve(app)
        try:
            graph = langgraph_approval.build_graph(client, f"http://127.0.0.1:{port}/hook")
            holder["app"] = langgraph_approval.webhook_app(graph, SECRET, resumed.done)
            thread, reference = await asyncio.to_thread(langgraph_approval.start, graph, MATTER)
            config = {"configurable": {"thread_id": thread}}
            assert graph.get_state(config).next == ("wait_for_lawyer",)

            email = await gateway.sink.request_email(reference)
            await send(reply_to(email, answer), gateway.smtp_port)
            await asyncio.wait_for(resumed.arrived.wait(), 30)
            assert resumed.finals[reference]["outcome"].startswith(outcome)
            assert graph.get_state(config).next == ()
            assert resumed.finals[reference]["answer"]["said"].startswith(answer.split(",")[0])
        finally:
            server.should_exit = True
            await task


async def test_a_webhook_without_the_gateways_signature_resumes_nothing(gateway: Running) -> None:
    base = f"http://127.0.0.1:{gateway.gateway.http_port}"
    with httpx.Client(base_url=base, timeout=30) as client:
        graph = langgraph_approval.build_graph(client, "http://127.0.0.1:9/hook")
        thread, reference = await asyncio.to_thread(langgraph_approval.start, graph, MATTER)
        app = langgraph_approval.webhook_app(graph, SECRET)
        forged = {"data": {"reference": reference, "status": "answered", "turns": []}}
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://hook") as hook:
            answered = await hook.post(f"/hook?thread={thread}", json=forged)
        assert answered.status_code == 401
        assert graph.get_state({"configurable": {"thread_id": thread}}).next == ("wait_for_lawyer",)
