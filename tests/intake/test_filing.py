"""Filing under an approval policy: who is asked, and the agent's extra approvers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import select

from gateway.store.models import AuditEntry
from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running

COUNSEL, PARTNER, GC = "counsel@firm.test", "partner@firm.test", "gc@firm.test"


@pytest.fixture
async def gateway(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(
        tmp_path,
        database_url=database_url,
        lawyers=f"{COUNSEL},{PARTNER}",
        policies=f"legal_review=any of {COUNSEL},{PARTNER}",
        escalation=f"*={GC}",
    )
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


async def test_an_agent_may_ask_for_more_approvers(gateway: Running) -> None:
    filed = await gateway.file(approvers=[GC.upper()])
    policy = (await gateway.status(filed))["turns"][0]["policy"]
    assert policy["rule"] == f"any of {COUNSEL},{PARTNER} + all of the agent's approvers veto"
    assert policy["waiting_for"] == [COUNSEL, PARTNER, GC]
    await gateway.sink.wait_for(3)
    assert sorted(str(m["To"]) for m in gateway.sink.messages()) == sorted((COUNSEL, PARTNER, GC))


@pytest.mark.parametrize(
    ("approvers", "says"),
    [
        (["stranger@elsewhere.test"], "unknown: stranger@elsewhere.test"),
        ([1, 2], "a list of addresses"),
        ({"gc": GC}, "a list of addresses"),
    ],
)
async def test_approvers_are_people_the_gateway_knows(
    gateway: Running, approvers: object, says: str
) -> None:
    response = await gateway.http.post(
        "/v1/requests",
        json={"category": "legal_review", "request": "Please review.", "approvers": approvers},
    )
    assert response.status_code == 422, response.text
    [detail] = response.json()["error"]["details"]
    assert detail["field"] == "approvers" and says in detail["message"]
    assert gateway.sink.received == []


async def test_the_audit_log_tells_the_request_before_the_emails_it_caused(
    gateway: Running,
) -> None:
    filed = await gateway.file()
    with gateway.services.db.read_only() as session:
        events = list(
            session.scalars(
                select(AuditEntry.event)
                .where(AuditEntry.reference == filed["reference"])
                .order_by(AuditEntry.seq)
            )
        )
    assert events[:3] == ["request.recorded", "email.queued", "email.queued"], events
