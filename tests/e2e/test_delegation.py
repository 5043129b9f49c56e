"""A lawyer hands a request to a colleague with the DELEGATE link, end to end over SMTP.

2 of 3 with veto. Counsel taps DELEGATE and names the deputy; the deputy gets the
request, told whose place they answer in, and their approval counts for counsel,
once. Partner trying to hand hers to the same deputy is refused in one sentence
(a loop), and so is the deputy handing it on again.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from email.message import EmailMessage
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.mailkit import reply_to, send

COUNSEL = "counsel@firm.test"
PARTNER = "partner@firm.test"
AVOCATE = "avocate@firm.test"
DEPUTY = "deputy@firm.test"
ASK = {
    "category": "legal_review",
    "request": "Sign Kestrel MSA 2027 today?",
    "proposed_action": "Sign Kestrel MSA 2027.",
}


@pytest.fixture
async def running(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(
        tmp_path,
        database_url=database_url,
        # The deputy is a lawyer of the firm (another category's), not an approver here.
        lawyers=f"legal_review={COUNSEL},{PARTNER},{AVOCATE}; *={DEPUTY}",
        policies=f"legal_review=2 of {COUNSEL},{PARTNER},{AVOCATE} veto",
        lawyer_languages=f"{PARTNER}=de",
    )
    started = await start_running(config, sink)
    yield started
    await stop_running(started)


def mails(running: Running, address: str, kind: str) -> list[EmailMessage]:
    return [
        m for m in running.sink.messages() if str(m["To"]) == address and m["X-HFA-Kind"] == kind
    ]


async def mail_to(running: Running, address: str, kind: str, count: int = 1) -> EmailMessage:
    for _ in range(300):
        found = mails(running, address, kind)
        if len(found) >= count:
            return found[count - 1]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {kind} email to {address}")


def plain(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    return " ".join(str(part.get_content()).split())


def delegate_link(email: EmailMessage) -> str:
    part = email.get_body(preferencelist=("html",))
    assert part is not None
    [url] = re.findall(r'href="(mailto:[^"]+)"[^>]*>DELEGATE</a>', str(part.get_content()))
    return unescape(url)


def tapped(url: str, sender: str, typed: str) -> EmailMessage:
    """The DELEGATE link as a mail client sends it, with an address typed under the prompt."""
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = unquote(parts.path)
    msg["Subject"] = query["subject"][0]
    msg["Message-ID"] = f"<delegate-{sender.partition('@')[0]}-{len(typed)}@firm.test>"
    msg.set_content(query["body"][0].replace("\r\n", "\n") + typed + "\n")
    return msg


def policy_of(thread: dict[str, Any]) -> dict[str, Any]:
    policy: dict[str, Any] = thread["turns"][0]["policy"]
    return policy


async def test_a_delegates_approval_counts_once_for_the_delegator_and_loops_are_refused(
    running: Running,
) -> None:
    filed = await running.file(**ASK)
    asks = {a: await mail_to(running, a, "request") for a in (COUNSEL, PARTNER, AVOCATE)}

    await send(tapped(delegate_link(asks[COUNSEL]), COUNSEL, DEPUTY), running.smtp_port)
    deputy_ask = await mail_to(running, DEPUTY, "request")
    assert f"{COUNSEL} asked you to answer this request in their place" in plain(deputy_ask)
    told = plain(await mail_to(running, COUNSEL, "delegation"))
    assert f"You handed this request to {DEPUTY}. Their answer counts as yours, once" in told

    # Partner hands hers to the same deputy: a loop, refused in one sentence, in German.
    await send(tapped(delegate_link(asks[PARTNER]), PARTNER, DEPUTY), running.smtp_port)
    refused = plain(await mail_to(running, PARTNER, "delegation"))
    assert f"{DEPUTY} beantwortet diese Anfrage bereits für {COUNSEL}" in refused
    assert len(mails(running, DEPUTY, "request")) == 1
    # The deputy cannot hand it on again.
    again = reply_to(deputy_ask, f"DELEGATE\n\n{AVOCATE}", sender=DEPUTY, display_name="")
    again.replace_header("Subject", f"DELEGATE [{filed['reference']}]")
    await send(again, running.smtp_port)
    assert "as their delegate, so you cannot hand it on again" in plain(
        await mail_to(running, DEPUTY, "delegation")
    )

    # The deputy approves twice: one approval, counted for counsel.
    await send(reply_to(deputy_ask, "APPROVE", sender=DEPUTY, display_name=""), running.smtp_port)
    thread = await running.wait_status(filed, lambda t: len(policy_of(t)["approvals"]) == 1)
    second = reply_to(deputy_ask, "APPROVE", sender=DEPUTY, display_name="")
    await send(second, running.smtp_port)
    await mail_to(running, DEPUTY, "receipt", 2)
    thread = await running.status(filed)
    [vote] = policy_of(thread)["approvals"]
    assert vote["who"] == COUNSEL and vote["by"] == DEPUTY
    assert policy_of(thread)["outcome"] == "pending"
    assert policy_of(thread)["waiting_for"] == [PARTNER, AVOCATE]

    await send(
        reply_to(asks[PARTNER], "APPROVE", sender=PARTNER, display_name=""), running.smtp_port
    )
    thread = await running.wait_status(filed, lambda t: policy_of(t)["outcome"] != "pending")
    assert policy_of(thread)["outcome"] == "approved"
    assert [v["who"] for v in policy_of(thread)["approvals"]] == [COUNSEL, PARTNER]
    delegated = [t for t in thread["turns"] if t["kind"] == "delegated"]
    assert len(delegated) == 1 and DEPUTY in delegated[0]["body"]
