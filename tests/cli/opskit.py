"""What the ops command tests share: the CLI beside a running gateway, and a request filed and mailed."""

from __future__ import annotations

import json
from email.message import EmailMessage
from typing import Any

import pytest
from sqlalchemy import select

from gateway.services import Services
from gateway.store.models import AuditEntry
from tests.clienv import run
from tests.conftest import Running


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def audit_events(services: Services, event: str) -> list[AuditEntry]:
    with services.db.read_only() as session:
        return list(session.scalars(select(AuditEntry).where(AuditEntry.event == event)))


async def file_and_mail(running: Running, **fields: Any) -> tuple[dict[str, Any], EmailMessage]:
    before = len(running.sink.received)
    filed = await running.file(**fields)
    return filed, (await running.sink.wait_for(before + 1))[before]
