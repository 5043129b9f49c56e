"""HFA_RETENTION on a running gateway: raw messages, attachments and texts go when due.

Each test's gateway keeps one kind for a second; the scheduler's retention job removes
it while the gateway serves, the audit log still verifies, and what is not due stays.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from gateway.settings.config import Config
from gateway.store.audit import ERASURE_EVENT
from gateway.store.models import Attachment, AuditEntry, InboundMessage, OutboxItem, Request
from tests import auditkit
from tests.clienv import hfa
from tests.conftest import Running, make_config
from tests.evidence.kit import export_of
from tests.mailkit import reply_to, send

ANSWER = "Approved, subject to the koala-clause-7781 staying as drafted."
ATTACHED = "koala-scan-7781 page\n" * 100


@pytest.fixture
def config(tmp_path: Path, database_url: str, request: pytest.FixtureRequest) -> Config:
    marker = request.node.get_closest_marker("retention")
    assert marker is not None
    return make_config(
        tmp_path, database_url=database_url, retention=marker.args[0], scheduler_seconds="0.2"
    )


async def _answered(running: Running, ask: str) -> dict[str, Any]:
    before = len(running.sink.received)
    filed = await running.file(request=ask)
    email = await running.sink.request_email(filed["reference"])
    reply = reply_to(email, ANSWER)
    reply.add_attachment(ATTACHED, subtype="plain", filename="scan.txt")
    await send(reply, running.smtp_port)
    await running.wait_status(filed, lambda s: s["human_has_replied"])
    await running.sink.wait_for(before + 2)  # the request email and the receipt
    return filed


async def _until(running: Running, done: Any, what: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        with running.services.db.read_only() as session:
            if done(session):
                return
        assert time.monotonic() < deadline, f"retention did not remove {what}"
        await asyncio.sleep(0.1)


@pytest.mark.retention("raw=1s,attachments=1s")
async def test_raw_messages_and_attachments_past_retention_lose_their_bytes(
    running: Running, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    filed = await _answered(running, "May we sign the koala lease?")

    def purged(session: Any) -> bool:
        raws = session.scalars(select(InboundMessage.size)).all()
        files = session.scalars(select(Attachment.size)).all()
        relayed = session.scalars(
            select(OutboxItem.id).where(OutboxItem.relayed.is_not(None))
        ).all()
        return bool(raws) and not any(raws) and bool(files) and not any(files) and not relayed

    await _until(running, purged, "the raw message, its attachment and the emails as relayed")
    with running.services.db.read_only() as session:
        (message,) = session.scalars(select(InboundMessage)).all()
        (attachment,) = session.scalars(select(Attachment)).all()
        purges = session.scalars(select(AuditEntry).filter_by(event="retention.purged")).all()
    # Bytes gone, the hashes that name them kept.
    assert message.raw == b"" and len(message.sha256) == 64
    assert attachment.content == b"" and len(attachment.sha256) == 64
    assert purges
    # Texts are not due: the thread still reads as the lawyer wrote it.
    status = await running.status(filed)
    assert any("koala-clause-7781" in t["body"] for t in status["turns"])
    verdict = await asyncio.to_thread(auditkit.verify, running.services)
    assert not verdict.problems, verdict.problems
    # A bundle made now leaves out the emails whose bytes are gone, says so, and verifies.
    bundle = tmp_path / "after-purge.zip"
    exported = await asyncio.to_thread(export_of, running, filed["reference"], bundle)
    assert exported.unsent >= 2  # the reply received, the emails relayed
    code, out = await asyncio.to_thread(hfa, capsys, "evidence", "verify", str(bundle))
    assert code == 0, out


@pytest.mark.retention("texts=1s")
async def test_texts_of_an_ended_request_past_retention_are_erased_and_the_log_verifies(
    running: Running,
) -> None:
    ended = await _answered(running, "May we renew the koala-renewal-3312 contract?")
    waiting = await running.file(request="Is the koala-open-5521 clause enforceable?")

    def erased(session: Any) -> bool:
        return bool(session.scalars(select(AuditEntry.seq).filter_by(event=ERASURE_EVENT)).all())

    await _until(running, erased, "the ended request's texts")
    status = await running.status(ended)
    last = status["turns"][-1]
    assert last["kind"] == "erased" and "retention" in last["body"], last
    assert "koala-renewal-3312" not in str(status) and "koala-clause-7781" not in str(status)
    # The request still awaiting an answer is not ended: it keeps its text.
    assert "koala-open-5521" in str(await running.status(waiting))
    with running.services.db.read_only() as session:
        fields = session.get(Request, 1)
        assert fields is not None and "koala" not in str(fields.fields)
    verdict = await asyncio.to_thread(auditkit.verify, running.services)
    assert not verdict.problems, verdict.problems
    assert verdict.erased
