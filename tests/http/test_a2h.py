"""A2H Message objects (proto.a2h.dev/v1alpha1): filed, emailed, answered over SMTP, read back."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.conftest import LAWYER, Running
from tests.mailkit import reply_to, send

APPROVAL_SCHEMA = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "comment": {"type": "string"}},
    "required": ["approved"],
}


def message(uid: str, text: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"agentMessage": text, "channel_id": LAWYER}
    if schema is not None:
        spec["response_schema"] = schema
    return {
        "apiVersion": "proto.a2h.dev/v1alpha1",
        "kind": "Message",
        "metadata": {"uid": uid},
        "spec": spec,
    }


async def ask_and_answer(running: Running, body: dict[str, Any], answer: str) -> dict[str, Any]:
    before = len(running.sink.received)
    created = await running.http.post("/a2h/v1alpha1/messages", json=body)
    assert created.status_code == 201, created.text
    assert created.json()["status"] == {}
    email = (await running.sink.wait_for(before + 1))[before]
    assert email["To"] == LAWYER
    await send(reply_to(email, answer), running.smtp_port)
    uid = body["metadata"]["uid"]
    for _ in range(200):
        got: dict[str, Any] = (await running.http.get(f"/a2h/v1alpha1/messages/{uid}")).json()
        if got["status"].get("humanMessage"):
            return got
        await asyncio.sleep(0.05)
    raise AssertionError(f"no answer on {uid}: {got}")


async def test_approval_message_gets_the_decision(running: Running) -> None:
    body = message("deploy-42", "May I deploy release 42 to production?", APPROVAL_SCHEMA)
    got = await ask_and_answer(running, body, "No, wait until Monday.")
    assert got["apiVersion"] == "proto.a2h.dev/v1alpha1" and got["kind"] == "Message"
    assert got["spec"] == body["spec"]
    assert got["metadata"]["uid"] == "deploy-42"
    assert got["status"]["humanMessage"] == "No, wait until Monday."
    assert got["status"]["response"] == {"approved": False, "comment": "No, wait until Monday."}


async def test_free_message_gets_the_text(running: Running) -> None:
    body = message("q-1", "Which law governs the ACME contract?")
    got = await ask_and_answer(running, body, "German law, see clause 19.")
    assert got["status"] == {
        "humanMessage": "German law, see clause 19.",
        "response": "German law, see clause 19.",
    }


async def test_invalid_messages_are_refused_clearly(running: Running) -> None:
    bad_kind = {**message("x", "hi"), "kind": "NewConversation"}
    r = await running.http.post("/a2h/v1alpha1/messages", json=bad_kind)
    assert r.status_code == 422 and "kind 'Message'" in r.json()["error"]["message"]
    other = message("y", "hi")
    other["spec"]["channel_id"] = "someone@else.example"
    r = await running.http.post("/a2h/v1alpha1/messages", json=other)
    assert r.status_code == 422 and "spec.channel_id" in r.json()["error"]["message"]
    r = await running.http.get("/a2h/v1alpha1/messages/never-filed")
    assert r.status_code == 404
