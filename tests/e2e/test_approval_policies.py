"""Several humans, one decision, end to end over SMTP: 2 of 3, veto, a delegate, an
approver who is away. Real sockets: the gateway's SMTP and HTTP listeners, an aiosmtpd
relay sink, and a webhook receiver for the agent's pushes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.http.test_a2h import APPROVAL_SCHEMA, message
from tests.mailkit import reply_to, send
from tests.outbound.test_push import Receiver, receiver

__all__ = ["receiver"]

COUNSEL = "counsel@firm.test"
PARTNER = "partner@firm.test"
GC = "gc@firm.test"
DEPUTY = "deputy@firm.test"
TWO_OF_THREE = f"legal_review=2 of {COUNSEL},{PARTNER},{GC} wait"
ASK = {
    "category": "legal_review",
    "request": "May we pay the Nordwind invoice of EUR 48,000 today?",
    "proposed_action": "Pay invoice 2026-114 to Nordwind GmbH today.",
}
Start = Callable[..., Any]


@pytest.fixture
async def start(
    tmp_path: Path, sink: SmtpSink, database_url: str
) -> AsyncIterator[Callable[..., Any]]:
    started: list[Running] = []

    async def run(**settings: str) -> Running:
        config = make_config(
            tmp_path,
            database_url=database_url,
            webhook_allow_private="1",
            lawyers=f"{COUNSEL},{PARTNER},{GC}",
            **settings,
        )
        running = await start_running(config, sink)
        started.append(running)
        return running

    yield run
    for running in started:
        await stop_running(running)


def to(running: Running, address: str, kind: str | None = None) -> list[EmailMessage]:
    return [
        m
        for m in running.sink.messages()
        if str(m["To"]) == address and (kind is None or m["X-HFA-Kind"] == kind)
    ]


async def mail_to(running: Running, address: str, kind: str, count: int = 1) -> EmailMessage:
    for _ in range(300):
        found = to(running, address, kind)
        if len(found) >= count:
            return found[count - 1]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {kind} email to {address}")


def plain(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    text: str = part.get_content()
    return text


def policy_of(thread: dict[str, Any]) -> dict[str, Any]:
    opening = thread["turns"][0]
    assert opening["kind"] == "request"
    policy: dict[str, Any] = opening["policy"]
    return policy


async def answer(running: Running, email: EmailMessage, text: str, sender: str) -> None:
    await send(reply_to(email, text, sender=sender, display_name=""), running.smtp_port)


async def until(
    running: Running, filed: dict[str, Any], test: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    return await running.wait_status(filed, lambda t: test(policy_of(t)), timeout=15)


def events(receiver: Receiver) -> list[dict[str, Any]]:
    return [json.loads(body) for _t, _h, body in receiver.calls]


async def test_two_of_three_first_pending_second_decides_third_conflicts(
    start: Start, receiver: Receiver
) -> None:
    running = await start(policies=TWO_OF_THREE)
    filed = await running.file(**ASK, reply_to=receiver.url)
    asks = {a: await mail_to(running, a, "request") for a in (COUNSEL, PARTNER, GC)}

    await answer(running, asks[COUNSEL], "Approved.", COUNSEL)
    thread = await until(running, filed, lambda p: len(p["approvals"]) == 1)
    policy = policy_of(thread)
    assert policy["outcome"] == "pending" and thread["status"] == "reviewed"
    assert policy["waiting_for"] == [PARTNER, GC]
    assert policy["rule"] == f"2 of {COUNSEL},{PARTNER},{GC} wait"
    receipt = " ".join(plain(await mail_to(running, COUNSEL, "receipt")).split())
    assert "Your vote is counted" in receipt
    # The rule in words, and the live tally with every name, never the stored rule.
    assert "You are one of 3 approvers. 2 approvals are needed. A rejection counts" in receipt
    assert f"APPROVED - {COUNSEL} - " in receipt
    assert f"Still waiting for: {PARTNER}, {GC}." in receipt and "2 of " not in receipt
    # Nobody is stood down by a vote that decided nothing.
    assert to(running, PARTNER, "answered_by_other") == []

    await answer(running, asks[PARTNER], "Approved, go ahead.", PARTNER)
    thread = await until(running, filed, lambda p: p["outcome"] == "approved")
    assert thread["status"] == "answered"
    assert [a["who"] for a in policy_of(thread)["approvals"]] == [COUNSEL, PARTNER]
    await receiver.wait_for(1)
    outcome = events(receiver)[0]["data"]
    assert outcome["policy"]["outcome"] == "approved" and not outcome["policy"]["conflict"]
    notice = " ".join(plain(await mail_to(running, GC, "answered_by_other")).split())
    assert "Decided: APPROVED" in notice and "You do not need to answer" in notice

    await answer(running, asks[GC], "Rejected. We must not pay before the audit.", GC)
    thread = await until(running, filed, lambda p: p["conflict"])
    policy = policy_of(thread)
    assert policy["outcome"] == "approved" and thread["status"] == "answered"
    assert [r["who"] for r in policy["rejections"]] == [GC]
    conflict = [t for t in thread["turns"] if t["kind"] == "policy_conflict"]
    assert len(conflict) == 1 and GC in conflict[0]["body"]
    await receiver.wait_for(2)
    pushed = events(receiver)
    # One push of the outcome; the later one tells of the conflict and changes nothing.
    assert [e["data"]["policy"]["outcome"] for e in pushed] == ["approved", "approved"]
    assert "policy_conflict" not in [t["kind"] for t in pushed[0]["data"]["turns"]]
    assert "policy_conflict" in [t["kind"] for t in pushed[1]["data"]["turns"]]
    assert pushed[1]["data"]["policy"]["conflict"] is True


async def test_under_veto_one_rejection_ends_it_at_once(start: Start, receiver: Receiver) -> None:
    running = await start(policies=f"legal_review=2 of {COUNSEL},{PARTNER},{GC} veto")
    filed = await running.file(**ASK, reply_to=receiver.url)
    email = await mail_to(running, PARTNER, "request")
    await answer(running, email, "Rejected.", PARTNER)
    thread = await until(running, filed, lambda p: p["outcome"] != "pending")
    assert policy_of(thread)["outcome"] == "rejected" and thread["status"] == "answered"
    await receiver.wait_for(1)
    assert events(receiver)[0]["data"]["policy"]["outcome"] == "rejected"


async def test_a_delegates_approval_counts_for_the_absent_approver(
    start: Start, receiver: Receiver
) -> None:
    running = await start(
        policies=TWO_OF_THREE,
        delegates=f"{COUNSEL}={DEPUTY} 2020-01-01..2099-12-31; {DEPUTY}=second@firm.test",
    )
    filed = await running.file(**ASK, reply_to=receiver.url)
    email = await mail_to(running, COUNSEL, "request")
    away = reply_to(
        email,
        "I am out of the office until 4 January.",
        sender=COUNSEL,
        subject="Out of office",
        extra_headers={"Auto-Submitted": "auto-replied"},
    )
    await send(away, running.smtp_port)
    deputy_mail = await mail_to(running, DEPUTY, "request")
    assert f"delegate of {COUNSEL}" in " ".join(plain(deputy_mail).split())
    # A second out-of-office reply does not ask the delegate again.
    away.replace_header("Message-ID", "<away-again@firm.test>")
    await send(away, running.smtp_port)
    # The delegate's own out-of-office reply is not delegated again.
    deputy_away = reply_to(
        deputy_mail,
        "Away too.",
        sender=DEPUTY,
        subject="Out of office",
        extra_headers={"Auto-Submitted": "auto-replied"},
    )
    await send(deputy_away, running.smtp_port)
    await answer(running, deputy_mail, "Approved.", DEPUTY)
    thread = await until(running, filed, lambda p: len(p["approvals"]) == 1)
    assert policy_of(thread)["approvals"][0]["who"] == COUNSEL
    assert policy_of(thread)["approvals"][0]["by"] == DEPUTY
    delegated = [t for t in thread["turns"] if t["kind"] == "delegated"]
    assert len(delegated) == 1 and DEPUTY in delegated[0]["body"]
    await answer(running, await mail_to(running, PARTNER, "request"), "Approved.", PARTNER)
    thread = await until(running, filed, lambda p: p["outcome"] == "approved")
    assert len(to(running, DEPUTY, "request")) == 1
    assert to(running, "second@firm.test") == []


async def test_an_approver_away_without_a_delegate_is_told_to_the_others(
    start: Start, receiver: Receiver
) -> None:
    running = await start(policies=TWO_OF_THREE, escalation="*=head@firm.test")
    filed = await running.file(**ASK)
    email = await mail_to(running, GC, "request")
    away = reply_to(
        email,
        "I am on leave.",
        sender=GC,
        subject="Automatic reply: away",
        extra_headers={"Auto-Submitted": "auto-replied"},
    )
    await send(away, running.smtp_port)
    for address in (COUNSEL, PARTNER, "head@firm.test"):
        notice = " ".join(plain(await mail_to(running, address, "approver_away")).split())
        assert f"{GC} is away" in notice
    thread = await running.status(filed)
    assert [t["kind"] for t in thread["turns"]].count("approver_away") == 1
    assert policy_of(thread)["outcome"] == "pending"
    # Escalation's own yes is recorded, but it is not one of the approvers': no outcome.
    head = await mail_to(running, "head@firm.test", "approver_away")
    await answer(running, head, "Approved.", "head@firm.test")
    receipt = " ".join(plain(await mail_to(running, "head@firm.test", "receipt")).split())
    assert "does not count towards the request's approval policy" in receipt
    thread = await running.status(filed)
    assert thread["status"] == "reviewed" and policy_of(thread)["outcome"] == "pending"
    assert policy_of(thread)["approvals"] == []


async def test_a2h_reports_the_outcome_not_the_first_vote(start: Start) -> None:
    running = await start(policies=f"human_confirmation=2 of {COUNSEL},{PARTNER},{GC} wait")
    body = message("pay-114", "May I pay invoice 2026-114 today?", APPROVAL_SCHEMA)
    body["spec"].pop("channel_id")
    created = await running.http.post("/a2h/v1alpha1/messages", json=body)
    assert created.status_code == 201, created.text

    async def status() -> dict[str, Any]:
        got: dict[str, Any] = (await running.http.get("/a2h/v1alpha1/messages/pay-114")).json()
        return got

    await answer(running, await mail_to(running, COUNSEL, "request"), "Approved.", COUNSEL)
    await mail_to(running, COUNSEL, "receipt")
    first = await status()
    # One vote of two: the human has written, but there is no decision yet.
    assert "response" not in first["status"]
    await answer(running, await mail_to(running, GC, "request"), "Approved.", GC)
    for _ in range(300):
        got = await status()
        if "response" in got["status"]:
            break
        await asyncio.sleep(0.05)
    assert got["status"]["response"]["approved"] is True
    assert "APPROVED" in got["status"]["response"]["comment"]


async def test_humanlayer_reports_the_outcome_not_the_first_vote(start: Start) -> None:
    running = await start(policies=f"human_confirmation=all of {COUNSEL},{PARTNER}")
    body = {"run_id": "r1", "call_id": "wire-1", "spec": {"fn": "wire", "kwargs": {"eur": 9}}}
    created = await running.http.post("/humanlayer/v1/function_calls", json=body)
    assert created.status_code == 200, created.text

    async def approved() -> Any:
        got = await running.http.get("/humanlayer/v1/function_calls/wire-1")
        return got.json()["status"]["approved"]

    await answer(running, await mail_to(running, PARTNER, "request"), "Approved.", PARTNER)
    await mail_to(running, PARTNER, "receipt")
    # All of two: one approval is no decision for the SDK, which keeps waiting.
    assert await approved() is None
    await answer(running, await mail_to(running, COUNSEL, "request"), "Approved.", COUNSEL)
    for _ in range(300):
        if await approved() is not None:
            break
        await asyncio.sleep(0.05)
    assert await approved() is True


async def test_a_decline_or_im_on_it_is_no_vote_and_stands_nobody_down(start: Start) -> None:
    running = await start(policies=TWO_OF_THREE)
    filed = await running.file(**ASK)
    await answer(running, await mail_to(running, COUNSEL, "request"), "DECLINE", COUNSEL)
    await answer(running, await mail_to(running, GC, "request"), "I'M ON IT", GC)
    await mail_to(running, COUNSEL, "receipt")
    await mail_to(running, GC, "receipt")
    thread = await running.status(filed)
    kinds = [t["kind"] for t in thread["turns"] if t["author"] == "human"]
    assert kinds == ["decline", "acknowledgement"]
    policy = policy_of(thread)
    assert policy["outcome"] == "pending" and policy["approvals"] == policy["rejections"] == []
    # One approver's decline does not decline the request for the others.
    assert thread["status"] == "reviewed"
    assert to(running, PARTNER, "answered_by_other") == []


async def test_a_typed_approval_under_a_window_counts_only_when_its_window_ends(
    start: Start, receiver: Receiver
) -> None:
    # Long enough for a loaded machine to read the status inside the window.
    running = await start(policies=TWO_OF_THREE, correction_window="6s")
    filed = await running.file(**ASK, reply_to=receiver.url)
    asks = {a: await mail_to(running, a, "request") for a in (COUNSEL, PARTNER, GC)}

    await answer(running, asks[COUNSEL], "Approved.", COUNSEL)
    receipt = " ".join(plain(await mail_to(running, COUNSEL, "receipt")).split())
    held = await running.status(filed)
    # Held in its window: on the thread, but no vote yet, and nothing moved.
    assert [t["kind"] for t in held["turns"]].count("pending_decision") == 1
    assert policy_of(held)["approvals"] == [] and policy_of(held)["outcome"] == "pending"
    assert held["status"] == "recorded"
    # Not counted yet: the receipt says when it will be, and nothing of a counted vote.
    assert "Your vote is counted" not in receipt
    assert "Your answer counts when its correction window ends." in receipt
    assert f"Still waiting for: {PARTNER}, {GC}." in receipt
    thread = await until(running, filed, lambda p: len(p["approvals"]) == 1)
    policy = policy_of(thread)
    assert [a["who"] for a in policy["approvals"]] == [COUNSEL]
    assert policy["outcome"] == "pending" and thread["status"] == "reviewed"
    assert policy["waiting_for"] == [PARTNER, GC]

    await answer(running, asks[PARTNER], "Approved, go ahead.", PARTNER)
    await mail_to(running, PARTNER, "receipt")
    still = await running.status(filed)
    assert len(policy_of(still)["approvals"]) == 1 and still["status"] == "reviewed"
    # One vote taken effect and one held: nobody stood down, nothing pushed.
    assert to(running, GC, "answered_by_other") == [] and receiver.calls == []
    thread = await until(running, filed, lambda p: p["outcome"] == "approved")
    assert thread["status"] == "answered"
    assert [a["who"] for a in policy_of(thread)["approvals"]] == [COUNSEL, PARTNER]
    await receiver.wait_for(1)
    assert events(receiver)[0]["data"]["policy"]["outcome"] == "approved"
    notice = " ".join(plain(await mail_to(running, GC, "answered_by_other")).split())
    assert "Decided: APPROVED" in notice
    await asyncio.sleep(0.5)
    assert len(receiver.calls) == 1
