"""``hfa requests reassign``: another lawyer takes a request over, on a running gateway."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from gateway.clock import FrozenClock
from gateway.settings.config import Config
from gateway.store.models import AuditEntry, Recipient
from tests.clienv import run, use_settings
from tests.conftest import LAWYER, SmtpSink, start_running, stop_running
from tests.mailkit import reply_to, send
from tests.test_scheduler import scan, start_clocked

NEW = "jane.partner@lawfirm.example"


async def test_a_request_moves_to_another_lawyer_who_answers_it(
    config: Config,
    sink: SmtpSink,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    running = await start_running(config, sink)
    try:
        filed = await running.file()
        await sink.wait_for(1)
        use_settings(monkeypatch, running.services.config.raw)
        code, out, err = run(
            capsys,
            "requests",
            "reassign",
            filed["reference"],
            "--to",
            NEW,
            "--reason",
            "Dana is on leave",
            "--by",
            "carol",
        )
        assert code == 0, err
        assert f"reassigned from {LAWYER} to {NEW} by carol" in out
        running.services.outbox_ready.set()
        emails = await sink.wait_for(3)
        to_new = next(m for m in emails if str(m["To"]) == NEW)
        told = next(m for m in emails[1:] if str(m["To"]) == LAWYER)
        assert str(told["Subject"]).startswith("Reassigned, no answer needed: ")
        assert "reassigned to jane.partner@lawfirm.example by carol" in _text(told)
        thread = await running.status(filed)
        policy = thread["turns"][0]["policy"]
        assert policy["waiting_for"] == [NEW]
        moved = next(t for t in thread["turns"] if t["kind"] == "reassigned")
        assert moved["author"] == "system" and "Dana is on leave" in moved["body"]

        await send(reply_to(to_new, "Approved.", sender=NEW), running.smtp_port)
        answered = await running.wait_status(filed, lambda t: t["status"] == "answered")
        assert answered["turns"][0]["policy"]["outcome"] == "approved"
        with running.services.db.read_only() as session:
            entry = session.scalars(
                select(AuditEntry).where(AuditEntry.event == "request.reassigned")
            ).one()
            roles = dict(session.execute(select(Recipient.address, Recipient.role)).all())
        assert entry.actor == "ops:carol"
        assert entry.details["from"] == LAWYER and entry.details["to"] == NEW
        assert roles == {LAWYER: "reassigned", NEW: "lawyer"}
    finally:
        await stop_running(running)


@pytest.mark.parametrize(
    ("argv", "code", "said"),
    [
        (("--to", LAWYER), 1, "is already on"),
        (("--to", "not-an-address"), 2, "--to: 'not-an-address' is not an email address"),
        (("--to", NEW, "--from", "someone@else.example"), 1, "does not wait for"),
    ],
)
async def test_a_reassignment_that_cannot_be_done_changes_nothing(
    config: Config,
    sink: SmtpSink,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    code: int,
    said: str,
) -> None:
    running = await start_running(config, sink)
    try:
        filed = await running.file()
        use_settings(monkeypatch, running.services.config.raw)
        got, _out, err = run(
            capsys, "requests", "reassign", filed["reference"], *argv, "--reason", "x"
        )
        assert got == code and said in err, err
        missing = run(capsys, "requests", "reassign", "HFA-99999", "--to", NEW, "--reason", "x")
        assert missing[0] == 3
        with running.services.db.read_only() as session:
            assert not session.scalars(
                select(AuditEntry).where(AuditEntry.event == "request.reassigned")
            ).all()
        assert (await running.status(filed))["turns"][0]["policy"]["waiting_for"] == [LAWYER]
    finally:
        await stop_running(running)


def _text(message: Any) -> str:
    part = message.get_body(preferencelist=("plain",))
    return str(part.get_content()) if part is not None else ""


async def test_the_earlier_lawyer_gets_no_more_reminders(
    config: Config,
    sink: SmtpSink,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The command runs on the real clock: the gateway's starts there too.
    clock = FrozenClock(datetime.now(UTC))
    running = await start_clocked(config, sink, clock)
    try:
        filed = await running.file(urgency="blocking")
        await sink.wait_for(1)
        use_settings(monkeypatch, running.services.config.raw)
        argv = ("requests", "reassign", filed["reference"], "--to", NEW, "--reason", "leave")
        assert run(capsys, *argv)[0] == 0
        clock.advance(timedelta(seconds=5))
        running.services.outbox_ready.set()
        await sink.wait_for(3)
        clock.advance(timedelta(hours=2))
        assert (await scan(running)).reminders == 1
        reminder = (await sink.wait_for(4))[3]
        assert str(reminder["Subject"]).startswith("Reminder 1: ")
        assert [str(m["To"]) for m in sink.messages()[3:]] == [NEW]
    finally:
        await stop_running(running)
