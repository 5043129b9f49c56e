"""Every agent interface asks a multiple choice and gets the pick back structured.

MCP (a raw 2026-07-28 client: the tool's schema is the seed's, ``options`` rides as an
extra property), the HumanLayer SDK (``response_options`` -> ``response_option_name``),
Twilio's A2H v1.0 (a COLLECT whose component has options -> the RESPONSE's data) and
the older A2H draft (a string enum schema -> ``status.response``). Each lawyer answers
over SMTP by tapping the second button.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from humanlayer import (
    ContactChannel,
    EmailContactChannel,
    HumanContactSpec,
    HumanLayer,
    ResponseOption,
)

from tests.conftest import LAWYER, Running, SmtpSink, make_config, start_running, stop_running
from tests.e2e.test_choices import choice_buttons, tapped
from tests.mailkit import send
from tests.mcpwire import HttpWire, tool_data

KEY = "choice-agents-key-0123456789abcdef"


@pytest.fixture
async def gateway(tmp_path: Path, sink: SmtpSink) -> AsyncIterator[Running]:
    # SQLite only: each interface reads the same record the SMTP tests cover on both.
    config = make_config(tmp_path, api_keys=f"agents:{KEY}", receipts="0")
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


async def tap_second(running: Running, before: int) -> None:
    """The lawyer taps the second choice's button of the newest request email."""
    email: EmailMessage = (await running.sink.wait_for(before + 1))[before]
    buttons = list(choice_buttons(email).values())
    await send(tapped(email, buttons[1]), running.smtp_port)


async def until(read: Any, done: Any, timeout: float = 20.0) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        got = await read()
        if done(got):
            return got
        assert asyncio.get_running_loop().time() < deadline, got
        await asyncio.sleep(0.1)


async def test_mcp_passes_options_and_the_status_carries_the_choice(gateway: Running) -> None:
    wire = HttpWire(gateway.http, "/mcp")
    gateway.http.headers["X-API-Key"] = KEY
    listed = await wire.call("tools/list")
    [tool] = [t for t in listed["result"]["tools"] if t["name"] == "request_human_assistance"]
    assert "options" not in tool["inputSchema"]["properties"]  # the seed's schema, unchanged
    arguments = {
        "category": "legal_review",
        "request": "Which court should the claim go to?",
        "options": {"format": "multiple_choice", "choices": ["Berlin", "Munich", "Hamburg"]},
    }
    filed = tool_data(
        await wire.call("tools/call", {"name": "request_human_assistance", "arguments": arguments})
    )
    await tap_second(gateway, 0)

    async def read() -> dict[str, Any]:
        params = {
            "name": "check_request_status",
            "arguments": {"reference": filed["reference"], "access_token": filed["access_token"]},
        }
        return tool_data(await wire.call("tools/call", params))

    status = await until(read, lambda s: any("choice" in t for t in s["turns"]))
    assert [t["choice"] for t in status["turns"] if "choice" in t] == ["Munich"]


async def test_humanlayer_response_options_come_back_as_response_option_name(
    gateway: Running,
) -> None:
    base = f"http://127.0.0.1:{gateway.gateway.http_port}/humanlayer/v1"
    hl = HumanLayer(api_key=KEY, api_base_url=base, run_id="r", sleep=lambda s: time.sleep(0.05))
    spec = HumanContactSpec(
        msg="Which entity signs the lease?",
        channel=ContactChannel(email=EmailContactChannel(address=LAWYER)),
        response_options=[
            ResponseOption(name="holding", title="Acme Holding"),
            ResponseOption(name="gmbh", title="Acme GmbH"),
        ],
    )
    task = asyncio.create_task(asyncio.to_thread(hl.fetch_human_response, spec))
    await tap_second(gateway, 0)
    completed = await asyncio.wait_for(task, 30)
    assert completed.contact.status is not None
    assert completed.contact.status.response_option_name == "gmbh"


async def test_a2h_collect_options_come_back_as_the_options_value(gateway: Running) -> None:
    body = {
        "a2h_version": "1.0",
        "type": "COLLECT",
        "message_id": str(uuid.uuid4()),
        "agent_id": "did:web:contracts-bot.example",
        "principal_id": "usr_legal_team",
        "channel": {"type": "email", "address": f"mailto:{LAWYER}"},
        "created_at": datetime.now(UTC).isoformat(),
        "render": {"body": "Which governing law should the NDA name?"},
        "components": [
            {
                "type": "SELECT",
                "name": "law",
                "options": [
                    {"value": "de", "label": "German law"},
                    {"value": "en", "label": "English law"},
                ],
            }
        ],
    }
    headers = {"X-A2H-API-Key": KEY}
    opened = (await gateway.http.post("/v1/intent", json=body, headers=headers)).json()
    await tap_second(gateway, 0)

    async def read() -> dict[str, Any]:
        answer = await gateway.http.get(f"/v1/status/{opened['interaction_id']}", headers=headers)
        found: dict[str, Any] = answer.json()
        return found

    found = await until(read, lambda s: s["state"] == "ANSWERED")
    data = found["response"]["data"]
    assert data["law"] == "en" and data["choice"] == "English law"


async def test_the_older_a2h_draft_enum_comes_back_as_the_response(gateway: Running) -> None:
    body = {
        "apiVersion": "proto.a2h.dev/v1alpha1",
        "kind": "Message",
        "metadata": {"uid": "venue-1"},
        "spec": {
            "agentMessage": "Which venue for the signing?",
            "response_schema": {"type": "string", "enum": ["Office", "Notary", "Online"]},
        },
    }
    headers = {"X-API-Key": KEY}
    created = await gateway.http.post("/a2h/v1alpha1/messages", json=body, headers=headers)
    assert created.status_code == 201, created.text
    await tap_second(gateway, 0)

    async def read() -> dict[str, Any]:
        got = await gateway.http.get("/a2h/v1alpha1/messages/venue-1", headers=headers)
        found: dict[str, Any] = got.json()
        return found

    found = await until(read, lambda m: m["status"].get("choice"))
    assert found["status"]["response"] == found["status"]["choice"] == "Notary"
