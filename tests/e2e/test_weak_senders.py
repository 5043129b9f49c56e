"""The safe default for decisions from weakly authenticated senders (the review's case 20).

Under the default settings (``HFA_WEAK_SENDER_DECISIONS=confirm``), an "Approved."
whose sender is proven by nothing but the reply address (the trusted server says
``dmarc=none``, a DKIM pass not aligned with From, ``spf=fail``, or wrote no
Authentication-Results) is held and the lawyer's registered address asked; their
CONFIRM records it. An aligned pass is recorded at once; ``record`` is the old rule.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.e2e.test_sender_assurance import challenges, deliver, reply_address
from tests.mailkit import reply_to

KEY = "weak-agents-key-0123456789abcdef"
TRUSTED = "mx.gateway.test"
LAWYER_DOMAIN = "lawfirm.example"

WEAK = {
    "dkim pass not aligned, dmarc=none": (
        f"{TRUSTED}; dkim=pass header.d=evil.test; spf=fail smtp.mailfrom=evil.test; "
        f"dmarc=none header.from={LAWYER_DOMAIN}"
    ),
    "dmarc=none only": f"{TRUSTED}; dmarc=none header.from={LAWYER_DOMAIN}",
    "no Authentication-Results": None,
    "spf=fail, dkim=none, dmarc=none": (
        f"{TRUSTED}; spf=fail smtp.mailfrom={LAWYER_DOMAIN}; dkim=none; dmarc=none"
    ),
}
ALIGNED = f"{TRUSTED}; dkim=pass header.d={LAWYER_DOMAIN}; dmarc=pass header.from={LAWYER_DOMAIN}"


async def gateway_with(
    tmp_path: Path, sink: SmtpSink, database_url: str, **settings: str
) -> Running:
    config = make_config(
        tmp_path,
        database_url=database_url,
        api_keys=f"agents:{KEY}",
        trusted_authserv_id=TRUSTED,
        **settings,
    )
    return await start_running(config, sink)


@pytest.fixture
async def confirming(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    # The product's default, which the other tests' configuration sets to record.
    running = await gateway_with(tmp_path, sink, database_url, weak_sender_decisions="confirm")
    yield running
    await stop_running(running)


async def file_one(running: Running) -> tuple[dict[str, Any], EmailMessage]:
    before = len(running.sink.messages())
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
    emails = await running.sink.wait_for(before + 1)
    return filed.json(), emails[-1]


def approved(email: EmailMessage, results: str | None) -> bytes:
    raw = reply_to(email, "Approved.").as_bytes()
    # As the trusted server writes it: on top, above every header of the message.
    return (f"Authentication-Results: {results}\r\n".encode() if results else b"") + raw


async def human_decisions(running: Running, filed: dict[str, Any]) -> list[str | None]:
    got = await running.http.get(
        f"/v1/requests/{filed['reference']}",
        headers={"Authorization": f"Bearer {filed['access_token']}"},
    )
    return [t.get("decision") for t in got.json()["turns"] if t["author"] == "human"]


async def until_decided(running: Running, filed: dict[str, Any]) -> list[str | None]:
    for _ in range(200):
        found = await human_decisions(running, filed)
        if found:
            return found
        await asyncio.sleep(0.05)
    return []


@pytest.mark.parametrize("variant", sorted(WEAK))
async def test_a_weakly_proven_decision_is_held_until_the_lawyer_confirms_it(
    confirming: Running, variant: str
) -> None:
    running = confirming
    filed, email = await file_one(running)
    await deliver(running, approved(email, WEAK[variant]), reply_address(email))
    (challenge,) = await challenges(running, 1)
    assert "HFA_WEAK_SENDER_DECISIONS=confirm" in " ".join(
        str(challenge.get_body(preferencelist=("plain",)).get_content()).split()  # type: ignore[union-attr]
    )
    await asyncio.sleep(0.5)
    assert await human_decisions(running, filed) == []

    await deliver(running, reply_to(challenge, "CONFIRM").as_bytes(), reply_address(challenge))
    assert await until_decided(running, filed) == ["approval"]


async def test_an_aligned_pass_is_recorded_at_once(confirming: Running) -> None:
    filed, email = await file_one(confirming)
    await deliver(confirming, approved(email, ALIGNED), reply_address(email))
    assert await until_decided(confirming, filed) == ["approval"]
    assert not [m for m in confirming.sink.messages() if m["X-HFA-Kind"] == "sender_challenge"]


async def test_a_question_is_recorded_on_the_reply_address(confirming: Running) -> None:
    filed, email = await file_one(confirming)
    asked = reply_to(email, "Which version of the NDA is this, the one from March?").as_bytes()
    await deliver(confirming, asked, reply_address(email))
    assert await until_decided(confirming, filed) == ["question"]


async def test_the_old_rule_records_it_on_the_reply_address(
    tmp_path: Path, sink: SmtpSink, database_url: str
) -> None:
    running = await gateway_with(tmp_path, sink, database_url, weak_sender_decisions="record")
    try:
        filed, email = await file_one(running)
        await deliver(running, approved(email, WEAK["dmarc=none only"]), reply_address(email))
        assert await until_decided(running, filed) == ["approval"]
    finally:
        await stop_running(running)
