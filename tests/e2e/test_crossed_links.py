"""An answer link that names another request decides neither request: held, the lawyer asked.

The review's R5 over SMTP: request A's APPROVE link sent to B's reply address,
and B's own link with the subject's reference edited to A's. Neither decides B,
at once or after the correction window, and A is unchanged; the lawyer's
registered address is asked, and their CONFIRM records it as B's answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.e2e.test_correction_window import tapped
from tests.e2e.test_sender_assurance import challenges, outcome_of, reply_address
from tests.mailkit import reply_to, send

KEY = "crossed-agents-key-0123456789abcdef"
WINDOW_SECONDS = 2


@pytest.fixture
async def running(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(
        tmp_path,
        database_url=database_url,
        api_keys=f"agents:{KEY}",
        correction_window=f"{WINDOW_SECONDS}s",
    )
    started = await start_running(config, sink)
    yield started
    await stop_running(started)


async def file_two(running: Running) -> tuple[list[dict[str, Any]], list[EmailMessage]]:
    filed = []
    for what in ("May we sign the ACME NDA?", "May we sign the BETA lease?"):
        answer = await running.http.post(
            "/v1/requests",
            json={"category": "human_confirmation", "request": what, "proposed_action": what},
            headers={"X-API-Key": KEY},
        )
        assert answer.status_code == 201, answer.text
        filed.append(answer.json())
    emails = await running.sink.wait_for(2)
    by_reference = {str(m["X-HFA-Reference"]): m for m in emails}
    return filed, [by_reference[f["reference"]] for f in filed]


async def thread(running: Running, filed: dict[str, Any]) -> dict[str, Any]:
    got = await running.http.get(
        f"/v1/requests/{filed['reference']}",
        headers={"Authorization": f"Bearer {filed['access_token']}"},
    )
    assert got.status_code == 200, got.text
    result: dict[str, Any] = got.json()
    return result


def human_kinds(view: dict[str, Any]) -> list[str]:
    return [t["kind"] for t in view["turns"] if t["author"] == "human"]


def a_link_of_a_to_b(emails: list[EmailMessage]) -> EmailMessage:
    link = tapped(emails[0], "APPROVE", "<crossed.a-to-b@lawfirm.example>")
    link.replace_header("To", reply_address(emails[1]))
    return link


def b_link_naming_a(filed: list[dict[str, Any]], emails: list[EmailMessage]) -> EmailMessage:
    link = tapped(emails[1], "APPROVE", "<crossed.edited@lawfirm.example>")
    link.replace_header("Subject", f"APPROVE [{filed[0]['reference']}]")
    return link


@pytest.mark.parametrize("make", ["a_link_to_b", "b_link_naming_a"])
async def test_a_link_naming_another_request_decides_neither(running: Running, make: str) -> None:
    filed, emails = await file_two(running)
    link = a_link_of_a_to_b(emails) if make == "a_link_to_b" else b_link_naming_a(filed, emails)
    await send(link, running.smtp_port)
    outcome, detail = await outcome_of(running, 0)
    assert outcome == "unverified_sender"
    assert f"names {filed[0]['reference']}" in detail and filed[1]["reference"] in detail

    # The lawyer is asked, at the address B was sent to, and told why.
    (challenge,) = await challenges(running, 1)
    text = challenge.get_body(preferencelist=("plain",))
    assert text is not None
    assert f"names {filed[0]['reference']}" in " ".join(str(text.get_content()).split())

    # Past the window: neither request was decided.
    await asyncio.sleep(WINDOW_SECONDS + 1.5)
    a, b = [await thread(running, f) for f in filed]
    assert "approval" not in human_kinds(b) and "pending_decision" not in human_kinds(b)
    assert b["status"] == "recorded" and a["status"] == "recorded"
    assert human_kinds(a) == []

    # The lawyer confirms it was meant for B: recorded as B's answer, A still unchanged.
    await send(reply_to(challenge, "CONFIRM"), running.smtp_port)
    assert (await outcome_of(running, 1))[0] == "confirmed"
    for _ in range(100):
        b = await thread(running, filed[1])
        if "approval" in human_kinds(b):
            break
        await asyncio.sleep(0.1)
    assert "approval" in human_kinds(b)
    assert human_kinds(await thread(running, filed[0])) == []
