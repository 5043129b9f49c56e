"""Twilio's A2H v1.0 end to end over SMTP, the RESPONSE verified with another JOSE library.

An agent discovers the gateway, files an AUTHORIZE with a callback, and the
lawyer answers "Approved." by email. The RESPONSE (from /v1/status and from the
webhook) carries a detached JWS over its JCS form, verified here with joserfc (a
JOSE library the gateway does not use) against the JWKS the gateway publishes;
the webhook's X-A2H-Signature is an HMAC the agent recomputes. A replayed
message_id returns the same interaction; COLLECT, INFORM, RESULT and cancel too.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from joserfc import jws
from joserfc.jwk import KeySet

from gateway.intake.jws import b64url, canonical
from gateway.store.thread import load_turns
from tests.conftest import LAWYER, Running, SmtpSink, make_config, start_running, stop_running
from tests.mailkit import reply_to, send
from tests.outbound.test_push import Receiver, receiver

__all__ = ["receiver"]

KEY = "a2h-agents-key-0123456789abcdef"
SECRET = "whsec_agent-side-secret-0123456789"


@pytest.fixture
async def gateway(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(
        tmp_path, database_url=database_url, webhook_allow_private="1", api_keys=f"agents:{KEY}"
    )
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


def intent(kind: str, **fields: Any) -> dict[str, Any]:
    return {
        "a2h_version": "1.0",
        "type": kind,
        "message_id": str(uuid.uuid4()),
        "agent_id": "did:web:contracts-bot.example",
        "principal_id": "usr_legal_team",
        "channel": {"type": "email", "address": f"mailto:{LAWYER}"},
        "created_at": datetime.now(UTC).isoformat(),
        **fields,
    }


async def post(running: Running, path: str, body: dict[str, Any] | None = None) -> Any:
    return await running.http.post(path, json=body or {}, headers={"X-A2H-API-Key": KEY})


async def status(running: Running, interaction_id: str) -> dict[str, Any]:
    answer = await running.http.get(f"/v1/status/{interaction_id}", headers={"X-A2H-API-Key": KEY})
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def verify(message: dict[str, Any], jwks: dict[str, Any]) -> None:
    """The gateway's detached JWS, checked by joserfc over the message's JCS form."""
    header, empty, signature = message["signature"].split(".")
    assert empty == ""
    payload = b64url(canonical({k: v for k, v in message.items() if k != "signature"}))
    keys = KeySet.import_key_set(jwks)  # type: ignore[arg-type]
    compact = f"{header}.{payload}.{signature}"
    verified = jws.deserialize_compact(compact, keys, algorithms=["Ed25519"])
    assert verified.protected["kid"] == jwks["keys"][0]["kid"]
    assert json.loads(verified.payload) == {k: v for k, v in message.items() if k != "signature"}


async def test_authorize_answered_by_email_signed_and_pushed(
    gateway: Running, receiver: Receiver
) -> None:
    running = gateway
    discovered = (await running.http.get("/.well-known/a2h")).json()
    assert discovered["a2h_supported"] == ["1.0"] and "email_link.v1" in discovered["factors"]
    jwks = (await running.http.get("/.well-known/jwks.json")).json()
    assert jwks["keys"][0]["kty"] == "OKP" and jwks["keys"][0]["crv"] == "Ed25519"

    sent = intent(
        "AUTHORIZE",
        render={"title": "NDA", "body": "Sign the mutual NDA with Acme as sent."},
        explanation_bundle={"why": "Signing binds the company."},
        callback={"url": receiver.url, "secret": SECRET},
    )
    opened = await post(running, "/v1/intent", sent)
    assert opened.status_code == 200, opened.text
    interaction = opened.json()
    assert interaction["state"] == "WAITING_INPUT" and "duplicate" not in interaction
    # The same message_id again: the same interaction, not a second request.
    again = (await post(running, "/v1/intent", sent)).json()
    assert again["interaction_id"] == interaction["interaction_id"] and again["duplicate"]

    email = (await running.sink.wait_for(1))[0]
    assert "Sign the mutual NDA with Acme as sent." in email.get_body().get_content()  # type: ignore[union-attr]
    await send(reply_to(email, "Approved."), running.smtp_port)
    await receiver.wait_for(1, timeout=20)
    found = await status(running, interaction["interaction_id"])
    assert found["state"] == "ANSWERED"
    response = found["response"]
    assert response["type"] == "RESPONSE" and response["decision"] == "APPROVE"
    assert response["responds_to"] == sent["message_id"]
    assert response["evidence"]["factor"] == "email_link.v1"
    assert response["evidence"]["proof"]["channel"] == f"mailto:{LAWYER}"
    verify(response, jwks)

    _at, headers, body = receiver.calls[0]
    timestamp, _, mac = headers["x-a2h-signature"].partition(",")
    t = int(timestamp.removeprefix("t="))
    expected = hmac.new(SECRET.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(mac.removeprefix("v1="), expected)
    assert headers["x-a2h-delivery-id"]
    pushed = json.loads(body)
    assert pushed == response
    verify(pushed, jwks)
    # A tampered RESPONSE does not verify.
    with pytest.raises(Exception):  # noqa: B017
        verify({**response, "decision": "DECLINE"}, jwks)
    # Once answered, it cannot be cancelled.
    refused = await post(running, f"/v1/cancel/{interaction['interaction_id']}")
    assert refused.status_code == 409 and refused.json()["error"] == "ERR.CONFLICT"


async def test_collect_inform_result_and_cancel(gateway: Running) -> None:
    running = gateway
    collect = intent(
        "COLLECT",
        render={"body": "Which governing law should the NDA name?"},
        components=[{"type": "TEXT", "name": "law", "label": "Governing law"}],
    )
    opened = (await post(running, "/v1/intent", collect)).json()
    note = intent(
        "INFORM", interaction_id=opened["interaction_id"], render={"body": "FYI: draft v2."}
    )
    first = await post(running, "/v1/intent", note)
    assert first.status_code == 200, first.text
    assert "duplicate" not in first.json()
    assert (await post(running, "/v1/intent", note)).json()["duplicate"] is True
    email = (await running.sink.wait_for(1))[0]
    # A long-poll, held while the interaction waits for its answer, answered once it has one.
    held = asyncio.create_task(
        running.http.get(
            f"/v1/status/{opened['interaction_id']}",
            params={"wait": "30"},
            headers={"X-A2H-API-Key": KEY},
            timeout=60,
        )
    )
    await asyncio.sleep(1.0)
    assert not held.done()
    await send(reply_to(email, "English law, please."), running.smtp_port)
    # Answered by the reply, before its own 30 s wait ends: a bounded wait, not a timing.
    found = (await asyncio.wait_for(held, 25)).json()
    assert found["state"] == "ANSWERED", found
    assert found["response"]["data"]["law"].startswith("English law")
    assert "decision" not in found["response"]
    result = intent(
        "RESULT",
        responds_to=collect["message_id"],
        render={"body": "NDA sent under English law."},
        params={"status": "EXECUTED"},
    )
    assert (await post(running, "/v1/intent", result)).status_code == 200

    escalate = intent("ESCALATE", render={"body": "The counterparty threatens to sue."})
    opened = (await post(running, "/v1/intent", escalate)).json()
    cancelled = await post(running, f"/v1/cancel/{opened['interaction_id']}")
    assert cancelled.json() == {
        "success": True,
        "message": "Interaction cancelled",
        "state": "CANCELLED",
    }
    assert (await status(running, opened["interaction_id"]))["state"] == "CANCELLED"


async def test_refusals_name_the_field(gateway: Running) -> None:
    running = gateway
    bad = await post(running, "/v1/intent", intent("AUTHORIZE"))
    assert bad.status_code == 422
    assert bad.json()["error"] == "ERR.INVALID_REQUEST"
    assert bad.json()["details"]["fields"][0]["field"] == "render.body"
    stale = intent(
        "AUTHORIZE",
        render={"body": "x"},
        created_at=(datetime.now(UTC) - timedelta(hours=1)).isoformat(),
    )
    replay = await post(running, "/v1/intent", stale)
    assert replay.json()["error"] == "ERR.REPLAY_REJECTED"
    plain = intent("AUTHORIZE", render={"body": "x"}, callback={"url": "ftp://x", "secret": "s"})
    assert (await post(running, "/v1/intent", plain)).json()["details"]["fields"][0][
        "field"
    ] == "callback.url"
    unknown = await running.http.get(f"/v1/status/{uuid.uuid4()}", headers={"X-A2H-API-Key": KEY})
    assert unknown.status_code == 404
    keyless = await running.http.post("/v1/intent", json=intent("AUTHORIZE", render={"body": "x"}))
    assert keyless.status_code == 401


async def test_a_typed_decision_is_waiting_input_through_its_correction_window(
    tmp_path: Path, sink: SmtpSink
) -> None:
    window = 4
    config = make_config(tmp_path, api_keys=f"agents:{KEY}", correction_window=f"{window}s")
    running = await start_running(config, sink)
    try:
        opened = (
            await post(
                running, "/v1/intent", intent("AUTHORIZE", render={"body": "Pay the invoice?"})
            )
        ).json()
        email = (await running.sink.wait_for(1))[0]
        await send(reply_to(email, "Approved."), running.smtp_port)
        seen: list[tuple[datetime, str]] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + window + 20
        while loop.time() < deadline:
            found = await status(running, opened["interaction_id"])
            seen.append((datetime.now(UTC), found["state"]))
            if found["state"] != "WAITING_INPUT":
                break
            await asyncio.sleep(0.2)
        assert found["state"] == "ANSWERED" and found["response"]["decision"] == "APPROVE"
        number = int(found["reference"].split("-")[1])
        with running.services.db.read_only() as session:
            turns = {t.kind: t.at for t in load_turns(session, number)}
        pending, effect = turns["pending_decision"], turns["approval"]
        assert (effect - pending).total_seconds() >= window - 0.5
        assert all(state == "WAITING_INPUT" for at, state in seen if at < effect)
        assert sum(1 for at, _ in seen if pending < at < effect) >= window
    finally:
        await stop_running(running)
