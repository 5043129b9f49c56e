"""A message the relay accepted is never sent twice, even when its sender died before
recording it sent: the note of holds says the relay accepted it (``A id``), and a
restart records the row as sent instead of sending it again when its hold ends."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from gateway.intake.filing import file_request
from gateway.outbound import hold_log
from gateway.services import Services, build_services
from gateway.settings.config import Config
from gateway.store.models import AuditEntry, OutboxItem
from tests.conftest import SmtpSink
from tests.outbound.test_hold_log import UNTIL, as_if_this_process_died, dead_pid, held_rows

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


@pytest.fixture
def services(config: Config) -> Iterator[Services]:
    built = build_services(config)
    yield built
    built.close()


def rows(services: Services) -> dict[int, tuple[str, datetime | None]]:
    with services.db.read_only() as session:
        found = session.execute(select(OutboxItem.id, OutboxItem.state, OutboxItem.lease_until))
        return {item_id: (state, until) for item_id, state, until in found}


def sent_entries(services: Services) -> list[dict[str, Any]]:
    with services.db.read_only() as session:
        found = session.scalars(select(AuditEntry).where(AuditEntry.event == "email.sent"))
        return [dict(entry.details) for entry in found]


def test_the_note_tells_an_accepted_message_from_one_whose_answer_never_came() -> None:
    stamp = UNTIL.isoformat()
    text = f"H 1 {stamp}\nD 1\nA 1\nH 2 {stamp}\nD 2\nH 3 {stamp}\nA 4\nA 9x\nH 5 {stamp}\nD 5\nA"
    assert hold_log.accepted_holds(text) == {1: UNTIL}
    assert hold_log.unsent_holds(text) == {3: UNTIL}


def test_a_restart_records_what_the_relay_accepted_as_sent_and_releases_only_the_unsent(
    services: Services,
) -> None:
    accepted, unanswered, unsent = held_rows(services, 3)
    folder = services.config.data_dir / hold_log.FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    stamp = UNTIL.isoformat()
    (folder / f"{dead_pid()}.log").write_text(
        f"H {accepted} {stamp}\nD {accepted}\nA {accepted}\n"
        f"H {unanswered} {stamp}\nD {unanswered}\nH {unsent} {stamp}\n"
    )
    assert hold_log.release_unsent(services.db, services.config.data_dir, services.audit, NOW) == 1
    now = rows(services)
    assert now[accepted] == ("sent", None)
    # The relay may have it, or not: held until the wait for its answer is over.
    assert now[unanswered] == ("pending", UNTIL)
    assert now[unsent] == ("pending", None)
    [entry] = sent_entries(services)
    assert entry["outbox_id"] == accepted and entry["relay"] == hold_log.ACCEPTED_DETAIL


@pytest.mark.parametrize("note_size", ["small", "due_to_be_emptied"])
async def test_a_delivery_accepted_then_cut_off_before_it_is_recorded_goes_out_once(
    services: Services, sink: SmtpSink, monkeypatch: pytest.MonkeyPatch, note_size: str
) -> None:
    """The relay answers 250, then the process stops dead before the row is marked sent
    (a kill): a later start records it sent, and no worker sends it again. So too when
    the note has grown past the size at which it starts again empty: it is not emptied
    before the success is written."""
    from gateway.outbound import outbox
    from gateway.outbound.outbox import OutboxWorker, email_deliverer
    from gateway.outbound.transports import SmtpRelay

    if note_size == "due_to_be_emptied":
        monkeypatch.setattr(hold_log, "TRUNCATE_BYTES", 0)

    with services.db.transaction() as session:
        file_request(services, session, {"category": "legal_review", "request": "Sign?"})
    accepted = asyncio.Event()

    def stall(*_args: Any, **_kwargs: Any) -> None:
        accepted.set()
        raise asyncio.CancelledError  # as if the process had died before its commit

    monkeypatch.setattr(outbox, "record_successes", stall)
    relay = SmtpRelay("127.0.0.1", sink.port)
    worker = OutboxWorker(services, {"email": email_deliverer(relay)})
    cut = asyncio.create_task(worker.run_once())
    await asyncio.wait_for(accepted.wait(), timeout=10)
    cut.cancel()
    with contextlib.suppress(BaseException):
        await cut
    await relay.close()
    assert len(sink.received) == 1
    [(state, until)] = rows(services).values()
    assert state == "pending" and until is not None
    assert until > datetime.now(UTC) + timedelta(minutes=5)
    as_if_this_process_died(services.config.data_dir)

    monkeypatch.undo()
    assert hold_log.release_after_restart(services) == 0
    assert [state for state, _until in rows(services).values()] == ["sent"]
    relay = SmtpRelay("127.0.0.1", sink.port)
    try:
        assert await OutboxWorker(services, {"email": email_deliverer(relay)}).run_once() == 0
    finally:
        await relay.close()
    assert len(sink.received) == 1
