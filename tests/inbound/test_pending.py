"""The correction window: which replies wait, and how a held reading is settled, once.

Replies go through the inbound worker into a real database (SQLite and
PostgreSQL) under a frozen clock, so each window ends exactly when the test says.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from gateway.clock import FrozenClock
from gateway.inbound import pending
from gateway.inbound.claims import claim_pending
from gateway.inbound.listener import store_inbound
from gateway.inbound.worker import process_one
from gateway.intake.filing import file_request
from gateway.intake.lookup import status_of
from gateway.replies import Reading, ReplyError
from gateway.services import Services, build_services
from gateway.store.models import OutboxItem, Recipient, Request, Turn
from gateway.store.reading_models import PendingReading
from tests.conftest import LAWYER, REPLY_DOMAIN, make_config

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
WINDOW = timedelta(minutes=2)
APPROVAL = Reading("approval", read_from="quick_reply", because="APPROVE", trigger="APPROVE")


@pytest.mark.parametrize(
    ("subject", "text", "reading", "expected"),
    [
        ("APPROVE [HFA-00001]", "APPROVE", APPROVAL, "approve"),
        ("REJECT [HFA-00001]", "REJECT", Reading("rejection", read_from="quick_reply"), "reject"),
        (
            "I'M ON IT [HFA-00001]",
            "I'M ON IT",
            Reading("acknowledgement", read_from="quick_reply"),
            "acknowledge",
        ),
        # Something typed under the prompt: read as typed text, so it waits.
        (
            "APPROVE [HFA-00001]",
            "APPROVE\n\nNotes (optional):\nonly under EUR 50,000",
            APPROVAL,
            None,
        ),
        ("APPROVE [HFA-00001]", "APPROVE\nDana", APPROVAL, None),
        # A typed answer in an ordinary reply.
        ("Re: May we sign? [HFA-00001]", "Approved.", APPROVAL, None),
        ("Re: APPROVE [HFA-00001]", "APPROVE", APPROVAL, None),
        # Another request's link, or a keyword the reading does not agree with.
        ("APPROVE [HFA-00002]", "APPROVE", APPROVAL, None),
        ("REJECT [HFA-00001]", "REJECT", APPROVAL, None),
        ("APPROVE [HFA-00001]", "APPROVE", Reading("reply"), None),
        ("APPROVE [HFA-00001]", "APPROVE", Reading("reply", unclear=True), None),
        # The reader says it came from words of the tables, not from the link.
        ("APPROVE [HFA-00001]", "APPROVE", Reading("approval", read_from="keyword"), None),
    ],
)
def test_only_an_untouched_answer_link_acts_at_once(
    subject: str, text: str, reading: Reading, expected: str | None
) -> None:
    link = pending.untouched_link(reading, subject, text, "HFA-00001")
    assert (link.key if link else None) == expected


def test_the_turn_says_where_its_reading_came_from_as_read() -> None:
    link = pending.untouched_link(APPROVAL, "APPROVE [HFA-00001]", "APPROVE", "HFA-00001")
    assert pending.source_of(APPROVAL, link) == {"read_from": "quick_reply", "because": "APPROVE"}
    reader = Reading("approval", read_from="yes_no", because="Yes.", answer="yes")
    assert pending.source_of(reader, None) == {
        "read_from": "yes_no",
        "because": "Yes.",
        "answer": "yes",
    }
    kept = Reading("reply", answer="yes")
    assert pending.source_of(kept, None) == {"read_from": None, "because": None, "answer": "yes"}
    # The language the reply was read in rides on the turn: the lawyer's next emails follow it.
    german = Reading("reply", because="Ja, bitte vorher Rücksprache.", language="de")
    assert pending.source_of(german, None)["language"] == "de"


def test_a_reading_that_breaks_its_own_rules_cannot_be_made() -> None:
    with pytest.raises(ReplyError):
        Reading("reply", conditions=("only EUR 10,000",))
    with pytest.raises(ReplyError):
        Reading("approval", conditions=("only EUR 10,000",), read_from="keyword")
    with pytest.raises(ReplyError):
        Reading("reply", read_from="keyword")


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(START)


@pytest.fixture
def windowed(tmp_path: Path, database_url: str, clock: FrozenClock) -> Iterator[Services]:
    config = make_config(tmp_path, database_url=database_url, correction_window="2m", receipts="1")
    services = build_services(config, clock=clock)
    yield services
    services.close()


def file_one(services: Services, **fields: Any) -> str:
    """A request with a webhook reply_to (queued, never sent here); its reply address."""
    arguments = {
        "category": "human_confirmation",
        "request": "May we sign the ACME NDA today?",
        "proposed_action": "Sign and return the ACME NDA.",
        "reply_to": "https://agent.example/hook",
    } | fields
    with services.db.transaction() as session:
        file_request(services, session, arguments)
        recipient = session.scalars(select(Recipient)).one()
        return services.tokens.reply_address(recipient.id, REPLY_DOMAIN)


def deliver(services: Services, address: str, subject: str, body: str) -> str:
    raw = (
        f"From: {LAWYER}\r\nTo: {address}\r\nSubject: {subject}\r\n"
        f"Message-ID: <{abs(hash((subject, body, services.clock.now())))}@law.example>\r\n\r\n"
        f"{body}\r\n"
    ).encode()
    inbound_id = store_inbound(services, raw, "127.0.0.1", LAWYER, [address])
    assert claim_pending(services) == [inbound_id]
    return process_one(services, inbound_id)


def typed(services: Services, address: str, text: str = "Approved.") -> str:
    return deliver(services, address, "Re: May we sign the ACME NDA today? [HFA-00001]", text)


def tap(services: Services, address: str, keyword: str, prompt: str) -> str:
    return deliver(services, address, f"{keyword} [HFA-00001]", f"{keyword}\r\n\r\n{prompt}")


def state(services: Services) -> tuple[str, list[tuple[str, str]], list[str]]:
    """The request's status, its turns (author/kind) and the purposes of what was queued."""
    with services.db.read_only() as session:
        request = session.get(Request, 1)
        assert request is not None
        turns = [(t.author, t.kind) for t in session.scalars(select(Turn).order_by(Turn.seq))]
        queued = list(session.scalars(select(OutboxItem.purpose).order_by(OutboxItem.id)))
        return request.status, turns, queued


def human_turns(services: Services) -> list[Turn]:
    with services.db.read_only() as session:
        found = list(session.scalars(select(Turn).where(Turn.author == "human").order_by(Turn.seq)))
        session.expunge_all()
        return found


def test_a_typed_decision_waits_then_takes_effect_once(
    windowed: Services, clock: FrozenClock
) -> None:
    address = file_one(windowed)
    assert typed(windowed, address) == "recorded"
    status, turns, queued = state(windowed)
    assert status == "recorded"
    assert turns[-1] == ("human", "pending_decision")
    assert queued == ["request", "receipt"]  # no push, nobody else told
    [held] = human_turns(windowed)
    assert held.data["decision"] is None
    assert held.data["pending"]["read_as"] == "approval"
    assert held.data["pending"]["takes_effect_at"] == "2026-12-01T09:02:00.000000Z"
    assert held.data["notice"].startswith("Not in effect: what was read from this reply takes")

    clock.advance(WINDOW - timedelta(seconds=1))
    assert pending.settle_due(windowed) == 0
    assert state(windowed)[0] == "recorded"
    clock.advance(timedelta(seconds=1))
    assert pending.settle_due(windowed) == 1
    assert pending.settle_due(windowed) == 0

    status, turns, queued = state(windowed)
    assert status == "answered"
    assert turns[-2:] == [("human", "approval"), ("system", "status_changed")]
    assert queued == ["request", "receipt", "push"]
    effect = human_turns(windowed)[-1]
    assert effect.data["decision"] == "approval"
    assert effect.data["held_turn"] == held.seq
    assert effect.body == held.body
    assert "pending" not in effect.data and "notice" not in effect.data


def test_two_workers_at_the_end_of_a_window_put_it_into_effect_once(
    windowed: Services, clock: FrozenClock
) -> None:
    address = file_one(windowed)
    typed(windowed, address)
    clock.advance(WINDOW)
    results: list[int] = []
    start = threading.Barrier(4)

    def worker() -> None:
        start.wait()
        results.append(pending.settle_due(windowed))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [0, 0, 0, 1]
    _status, turns, queued = state(windowed)
    assert turns.count(("human", "approval")) == 1
    assert queued.count("push") == 1


def test_a_worker_ending_windows_passes_a_reading_another_is_putting_into_effect(
    windowed: Services, clock: FrozenClock
) -> None:
    """On PostgreSQL, a worker ending windows does not wait for another worker's open
    transaction on the same reading (the whole recording of its effect): it passes it."""
    if windowed.db.is_sqlite:
        pytest.skip("SQLite has one writer at a time: no transaction is open beside another")
    address = file_one(windowed)
    typed(windowed, address)
    clock.advance(WINDOW)
    with windowed.db.read_only() as session:
        pending_id = session.scalars(select(PendingReading.id)).one()
    results: list[int] = []
    with windowed.db.transaction() as session:
        assert pending.take_effect(windowed, session, pending_id, clock.now())
        other = threading.Thread(target=lambda: results.append(pending.settle_due(windowed)))
        other.start()
        other.join(timeout=20)
        # Passed while the first transaction is still open, rather than waiting for it.
        assert results == [0]
    _status, turns, _queued = state(windowed)
    assert turns.count(("human", "approval")) == 1


def test_a_correction_inside_the_window_replaces_the_reading(
    windowed: Services, clock: FrozenClock
) -> None:
    address = file_one(windowed)
    typed(windowed, address)
    clock.advance(timedelta(seconds=15))
    assert tap(windowed, address, "REJECT", "Reasons, or what to do instead:") == "recorded"
    status, turns, queued = state(windowed)
    assert status == "answered"
    assert ("system", "reading_replaced") in turns
    assert turns[-2:] == [("human", "rejection"), ("system", "status_changed")]
    clock.advance(WINDOW)
    assert pending.settle_due(windowed) == 0
    _status, turns, queued = state(windowed)
    assert ("human", "approval") not in turns
    assert queued == ["request", "receipt", "receipt", "push"]
    with windowed.db.read_only() as session:
        assert list(session.scalars(select(PendingReading.outcome))) == ["replaced"]


def test_a_typed_retraction_inside_the_window_leaves_no_decision(
    windowed: Services, clock: FrozenClock
) -> None:
    address = file_one(windowed)
    typed(windowed, address)
    clock.advance(timedelta(seconds=30))
    typed(windowed, address, "Sorry, ignore my last email; I need to read it again.")
    clock.advance(WINDOW * 3)
    assert pending.settle_due(windowed) == 0
    kinds = [t.kind for t in human_turns(windowed)]
    assert "approval" not in kinds
    assert kinds[0] == "pending_decision"


def test_a_correction_after_the_window_is_a_new_turn_after_the_decision(
    windowed: Services, clock: FrozenClock
) -> None:
    address = file_one(windowed)
    typed(windowed, address)
    clock.advance(WINDOW + timedelta(seconds=5))
    # The job has not run yet: the earlier decision takes effect first, then this one.
    tap(windowed, address, "REJECT", "Reasons, or what to do instead:")
    kinds = [t.kind for t in human_turns(windowed)]
    assert kinds == ["pending_decision", "approval", "rejection"]
    assert state(windowed)[2].count("push") == 2
    assert pending.settle_due(windowed) == 0


def test_an_untouched_tap_is_not_held(windowed: Services) -> None:
    address = file_one(windowed)
    tap(windowed, address, "APPROVE", "Notes (optional):")
    status, turns, queued = state(windowed)
    assert status == "answered"
    assert ("human", "approval") in turns
    assert queued == ["request", "receipt", "push"]
    [turn] = human_turns(windowed)
    assert turn.data["read_from"] == "quick_reply"


@pytest.mark.parametrize(
    "text", ["Thanks!", "Hi,\n\nThank you", "", "Thanks!\n\n-- \nDana Counsel\nPartner"]
)
def test_a_reply_with_no_new_text_moves_nothing(windowed: Services, text: str) -> None:
    address = file_one(windowed, urgency="blocking")
    assert typed(windowed, address, text.replace("\n", "\r\n")) == "recorded"
    status, turns, queued = state(windowed)
    assert status == "recorded"
    assert turns[-1] == ("human", "no_answer")
    # The lawyer's receipt only: no push, and nobody is told to stand down.
    assert queued == ["request", "receipt"]
    with windowed.db.read_only() as session:
        request = session.get(Request, 1)
        assert request is not None and request.first_human_reply_at is None
        assert list(session.scalars(select(PendingReading))) == []


def agent_notice(services: Services) -> str:
    """The notice of the status the agent reads."""
    with services.db.read_only() as session:
        request = session.get(Request, 1)
        assert request is not None
        notice: str = status_of(session, request)["notice"]
        return notice


def test_the_agent_is_told_a_held_reading_is_not_in_effect_and_then_its_conditions(
    windowed: Services, clock: FrozenClock
) -> None:
    address = file_one(windowed)
    typed(windowed, address, "Approved, provided the liability cap stays at EUR 10,000.")
    # A human has replied: the status must not say nobody has read it, nor that it counts.
    held = agent_notice(windowed)
    assert "no human has read it" not in held
    assert "held and not in effect until 2026-12-01T09:02:00.000000Z" in held
    clock.advance(WINDOW)
    assert pending.settle_due(windowed) == 1
    assert [t.kind for t in human_turns(windowed)][-1] == "conditional_approval"
    # As the push says it: proceed only within the conditions.
    assert agent_notice(windowed).endswith("proceed only within them.")


def test_a_reply_with_no_decision_word_keeps_the_language_it_was_written_in(
    windowed: Services,
) -> None:
    """Its receipt follows the turn's language: without it, the lawyer who wrote in Spanish
    got an English receipt."""
    address = file_one(windowed)
    said = "Gracias por el contrato. Lo leeré con calma esta semana y le escribiré después."
    assert typed(windowed, address, said) == "recorded"
    (turn,) = human_turns(windowed)
    assert turn.data["decision"] is None
    assert turn.data["language"] == "es"
