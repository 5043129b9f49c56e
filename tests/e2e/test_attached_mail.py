"""The review's rfc822_20deep over SMTP: "Approved." with an email attached 20 deep is an approval.

The attached emails' text ("level 1" ... "level 19", then "Rejected.") is kept as
a file the lawyer sent, never read as the lawyer's words.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.inbound.test_attached_mail import forwarded
from tests.mailkit import reply_to, send

KEY = "attached-agents-key-0123456789abcdef"


@pytest.fixture
async def running(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(tmp_path, database_url=database_url, api_keys=f"agents:{KEY}")
    started = await start_running(config, sink)
    yield started
    await stop_running(started)


async def test_an_approval_with_an_email_attached_20_deep_is_recorded_as_approval(
    running: Running,
) -> None:
    filed = await running.http.post(
        "/v1/requests",
        json={
            "category": "human_confirmation",
            "request": "May we sign the ACME NDA?",
            "proposed_action": "Sign and return the ACME NDA.",
        },
        headers={"X-API-Key": KEY},
    )
    assert filed.status_code == 201, filed.text
    [email] = await running.sink.wait_for(1)
    reply = reply_to(email, "Approved.")
    reply.add_attachment(forwarded("Rejected. (innermost, quoted history)", depth=20))
    await send(reply, running.smtp_port)
    headers = {"Authorization": f"Bearer {filed.json()['access_token']}"}
    for _ in range(200):
        thread = (
            await running.http.get(f"/v1/requests/{filed.json()['reference']}", headers=headers)
        ).json()
        human = [t for t in thread["turns"] if t["author"] == "human"]
        if human:
            break
        await asyncio.sleep(0.05)
    assert [t["decision"] for t in human] == ["approval"]
    assert thread["status"] == "answered"
    # The attached email is on the record as a file of the reply.
    assert [a["type"] for a in human[0]["attachments"]] == ["message/rfc822"]
