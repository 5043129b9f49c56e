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
from tests.outbound.test_smtp_wire import SlowReader

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


def test_the_note_tells_a_dot_the_kernel_took_from_one_about_to_be_written() -> None:
    """Taken by the kernel (``S``), the dot reaches the relay even if the process dies at
    once: the relay got the whole message. Noted as about to be written (``D``), it may
    not have left the process."""
    stamp = UNTIL.isoformat()
    text = (
        f"H 1 {stamp}\nD 1\nS 1\n"  # the kernel's; no answer read
        f"H 2 {stamp}\nD 2\n"  # about to be written, no more
        f"H 3 {stamp}\nD 3\nU 3\nS 3\n"  # buffered first, then the kernel's
        f"H 4 {stamp}\nD 4\nU 4\n"  # still in the process's buffer
        f"H 5 {stamp}\nD 5\nS 5\nA 5\n"  # and accepted
        f"H 6 {stamp}\nD 6\nS 6\nH 6 {stamp}\n"  # tried again since, not sent yet
    )
    assert hold_log.received_holds(text) == {1: UNTIL, 3: UNTIL}
    assert hold_log.accepted_holds(text) == {5: UNTIL}
    assert hold_log.unsent_holds(text) == {4: UNTIL, 6: UNTIL}


def test_a_restart_records_what_the_relay_accepted_as_sent_and_releases_only_the_unsent(
    services: Services,
) -> None:
    accepted, received, unanswered, unsent = held_rows(services, 4)
    folder = services.config.data_dir / hold_log.FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    stamp = UNTIL.isoformat()
    (folder / f"{dead_pid()}.log").write_text(
        f"H {accepted} {stamp}\nD {accepted}\nS {accepted}\nA {accepted}\n"
        f"H {received} {stamp}\nD {received}\nS {received}\n"
        f"H {unanswered} {stamp}\nD {unanswered}\nH {unsent} {stamp}\n"
    )
    assert hold_log.release_unsent(services.db, services.config.data_dir, services.audit, NOW) == 1
    now = rows(services)
    assert now[accepted] == ("sent", None) and now[received] == ("sent", None)
    # The relay may have it, or not: held until the wait for its answer is over.
    assert now[unanswered] == ("pending", UNTIL)
    assert now[unsent] == ("pending", None)
    said = {entry["outbox_id"]: entry["relay"] for entry in sent_entries(services)}
    assert said == {accepted: hold_log.ACCEPTED_DETAIL, received: hold_log.RECEIVED_DETAIL}


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


class NeverAnswersTheDot(SlowReader):
    """A relay that takes whole messages and has not answered their dot yet, as a sender
    killed before it read the answer finds it."""

    pause_seconds = 0.0
    answer = None


async def test_a_delivery_cut_off_once_the_relay_had_its_dot_is_not_sent_again(
    services: Services, sink: SmtpSink
) -> None:
    """The whole message, dot and all, is the relay's; the process dies before it reads
    the answer (a kill): a later start records it sent rather than holding it for the
    wait for the answer and then sending the lawyer a second copy."""
    from gateway.outbound.outbox import OutboxWorker, email_deliverer
    from gateway.outbound.transports import SmtpRelay

    with services.db.transaction() as session:
        file_request(services, session, {"category": "legal_review", "request": "Sign?"})
    silent = NeverAnswersTheDot()
    server = await asyncio.get_running_loop().create_server(lambda: silent, "127.0.0.1", 0)
    relay = SmtpRelay("127.0.0.1", server.sockets[0].getsockname()[1])
    worker = OutboxWorker(services, {"email": email_deliverer(relay)})
    cut = asyncio.create_task(worker.run_once())
    try:
        deadline = asyncio.get_running_loop().time() + 10
        while not silent.messages:
            assert asyncio.get_running_loop().time() < deadline, "the relay got no message"
            await asyncio.sleep(0.01)
    finally:
        cut.cancel()  # as if the process had died here
        with contextlib.suppress(BaseException):
            await cut
        await relay.close()
        server.close()
    [(state, until)] = rows(services).values()
    assert state == "pending" and until is not None
    assert until > datetime.now(UTC) + timedelta(minutes=5)
    as_if_this_process_died(services.config.data_dir)

    assert hold_log.release_after_restart(services) == 0
    assert [state for state, _until in rows(services).values()] == ["sent"]
    [entry] = sent_entries(services)
    assert entry["relay"] == hold_log.RECEIVED_DETAIL
    # Nothing is due: the lawyer gets no second copy, now or when the hold would end.
    later = SmtpRelay("127.0.0.1", sink.port)
    try:
        assert await OutboxWorker(services, {"email": email_deliverer(later)}).run_once() == 0
    finally:
        await later.close()
    assert sink.received == []
