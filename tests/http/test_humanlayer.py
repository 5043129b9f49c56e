"""The unmodified HumanLayer SDK (0.7.x) against the gateway, a lawyer answering over SMTP."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any, TypeVar

import pytest
from humanlayer import (
    ContactChannel,
    EmailContactChannel,
    FunctionCallSpec,
    HumanLayer,
)
from sqlalchemy import select

from gateway.store.models import Turn
from tests.conftest import LAWYER, Running, SmtpSink, make_config, start_running, stop_running
from tests.mailkit import reply_to, send

KEY = "hl-workshop-key-0123456789abcdef"
T = TypeVar("T")


@pytest.fixture
async def gateway(tmp_path: Path, sink: SmtpSink) -> AsyncIterator[Running]:
    # SQLite only: the compat layer adds no SQL of its own beyond one lookup by id.
    config = make_config(tmp_path, api_keys=f"workshop:{KEY}", receipts="0")
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


def client(running: Running) -> HumanLayer:
    base = f"http://127.0.0.1:{running.gateway.http_port}/humanlayer/v1"
    # The SDK waits 3 s between polls; a short sleep keeps the test fast.
    return HumanLayer(
        api_key=KEY, api_base_url=base, run_id="workshop-run", sleep=lambda s: time.sleep(0.05)
    )


def email_channel(address: str = LAWYER) -> ContactChannel:
    return ContactChannel(email=EmailContactChannel(address=address))


async def answered(
    running: Running, blocking: Callable[[], T], answer: str
) -> tuple[T, EmailMessage]:
    """Run the SDK's blocking call in a thread; the lawyer replies to the email it causes."""
    before = len(running.sink.received)
    task = asyncio.create_task(asyncio.to_thread(blocking))
    email = (await running.sink.wait_for(before + 1))[before]
    assert not task.done(), "the SDK must block until the lawyer answers"
    await send(reply_to(email, answer), running.smtp_port)
    return await asyncio.wait_for(task, 20), email


def text_of(email: EmailMessage) -> str:
    part = email.get_body(preferencelist=("plain",))
    assert part is not None
    content: str = part.get_content()
    return content


async def test_fetch_approval_approved(gateway: Running) -> None:
    hl = client(gateway)
    spec = FunctionCallSpec(fn="divide", kwargs={"a": 5, "b": 4}, channel=email_channel())
    done, email = await answered(gateway, lambda: hl.fetch_approval(spec), "approved")
    status = done.as_completed()
    assert status.approved is True
    assert done.call.status is not None and done.call.status.responded_at is not None
    assert email["To"] == LAWYER
    text = text_of(email)
    assert "divide" in text
    # The call's arguments as a table: one row per argument.
    assert any(line.removeprefix("| ").split() == ["a", "|", "5"] for line in text.splitlines())
    assert any(line.removeprefix("| ").split() == ["b", "|", "4"] for line in text.splitlines())
    html_part = email.get_body(preferencelist=("html",))
    assert html_part is not None
    html = html_part.get_content()
    assert ">argument a</th>" in html and ">argument b</th>" in html


async def test_fetch_approval_rejected_with_the_lawyers_words(gateway: Running) -> None:
    hl = client(gateway)
    spec = FunctionCallSpec(fn="divide", kwargs={"a": 5, "b": 4}, channel=email_channel())
    done, _ = await answered(gateway, lambda: hl.fetch_approval(spec), "No, use 6 instead of 5")
    status = done.as_completed()
    assert status.approved is False
    assert status.comment == "No, use 6 instead of 5"


async def test_require_approval_runs_or_refuses_the_function(gateway: Running) -> None:
    hl = client(gateway)

    @hl.require_approval(contact_channel=email_channel())
    def divide(a: float, b: float) -> float:
        return a / b

    result, _ = await answered(gateway, lambda: divide(a=5, b=4), "Approved.")
    assert result == 1.25
    refused, _ = await answered(gateway, lambda: divide(a=5, b=4), "No, use 6 instead of 5")
    assert refused == "User denied divide with message: No, use 6 instead of 5"


async def test_human_as_tool_returns_the_lawyers_reply(gateway: Running) -> None:
    hl = client(gateway)
    ask = hl.human_as_tool(contact_channel=email_channel())
    answer, email = await answered(
        gateway,
        # The SDK types the tool as taking one argument; it takes (message, title).
        lambda: ask("Is clause 7 of the ACME NDA enforceable in Germany?", "NDA question"),  # type: ignore[call-arg]
        "Mostly yes; the non-compete part is not.",
    )
    assert answer == "Mostly yes; the non-compete part is not."
    assert "NDA question" in str(email["Subject"])
    assert "clause 7 of the ACME NDA" in text_of(email)


async def test_human_as_tool_waits_past_a_promise_to_answer_later(gateway: Running) -> None:
    """ "I'll look at it tomorrow and get back to you." is not the lawyer's answer: the SDK
    keeps waiting, and returns the answer that follows."""
    hl = client(gateway)
    ask = hl.human_as_tool(contact_channel=email_channel())
    task = asyncio.create_task(
        asyncio.to_thread(ask, "Is clause 7 of the ACME NDA enforceable in Germany?", "NDA")  # type: ignore[call-arg]
    )
    email = (await gateway.sink.wait_for(1))[0]
    await send(reply_to(email, "I'll look at it tomorrow and get back to you."), gateway.smtp_port)
    await _until_turn(gateway, "acknowledgement")
    await asyncio.sleep(0.5)  # several of the SDK's polls
    assert not task.done(), "a promise to answer later must not end the wait"
    await send(reply_to(email, "Mostly yes; the non-compete part is not."), gateway.smtp_port)
    assert await asyncio.wait_for(task, 20) == "Mostly yes; the non-compete part is not."


async def _until_turn(running: Running, kind: str, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        with running.services.db.read_only() as session:
            if session.scalars(select(Turn).where(Turn.kind == kind)).first() is not None:
                return
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {kind} turn was recorded")


async def test_state_is_echoed_and_recipients_are_not_the_agents_choice(gateway: Running) -> None:
    headers = {"Authorization": f"Bearer {KEY}"}
    body: dict[str, Any] = {
        "run_id": "r1",
        "call_id": "call-state-1",
        "spec": {"fn": "wire", "kwargs": {"eur": 40000}, "state": {"thread": [1, 2]}},
        "status": None,
    }
    created = await gateway.http.post("/humanlayer/v1/function_calls", json=body, headers=headers)
    assert created.status_code == 200, created.text
    got = await gateway.http.get("/humanlayer/v1/function_calls/call-state-1", headers=headers)
    assert got.json()["spec"]["state"] == {"thread": [1, 2]}
    assert got.json()["status"]["approved"] is None

    elsewhere = {**body, "call_id": "call-2"}
    elsewhere["spec"] = {**body["spec"], "channel": {"email": {"address": "ceo@victim.example"}}}
    refused = await gateway.http.post(
        "/humanlayer/v1/function_calls", json=elsewhere, headers=headers
    )
    assert refused.status_code == 422
    assert "must be one of the lawyers configured" in refused.json()["error"]["message"]

    no_key = await gateway.http.post("/humanlayer/v1/function_calls", json=body)
    assert no_key.status_code == 401


async def test_escalation_reminds_the_lawyer_but_adds_no_recipient(gateway: Running) -> None:
    from humanlayer import (  # type: ignore[attr-defined]  # not in the SDK's __all__
        EmailRecipient,
        Escalation,
        HumanLayerException,
    )

    hl = client(gateway)
    body = {
        "run_id": "r1",
        "call_id": "call-esc-1",
        "spec": {"fn": "pay", "kwargs": {"eur": 900}},
        "status": None,
    }
    headers = {"Authorization": f"Bearer {KEY}"}
    created = await gateway.http.post("/humanlayer/v1/function_calls", json=body, headers=headers)
    assert created.status_code == 200
    await gateway.sink.wait_for(1)
    escalated = await asyncio.to_thread(
        hl.escalate_email_function_call,
        "call-esc-1",
        Escalation(escalation_msg="Still waiting: the payment run closes at 3pm."),
    )
    assert escalated.call_id == "call-esc-1" and escalated.status is not None
    follow_up = (await gateway.sink.wait_for(2))[1]
    assert follow_up["To"] == LAWYER
    assert "the payment run closes at 3pm" in text_of(follow_up)

    with pytest.raises(HumanLayerException, match="additional_recipients"):
        await asyncio.to_thread(
            hl.escalate_email_function_call,
            "call-esc-1",
            Escalation(
                escalation_msg="Also ask the CFO.",
                additional_recipients=[EmailRecipient(address="cfo@corp.example")],
            ),
        )
