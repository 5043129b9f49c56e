"""Every reply text the project has, told alike everywhere: the property of one reading.

For each text of the decision sets (the trap families, the natural and held-out answers,
the two sets written blind), the reading is recorded through the real inbound worker on
a real database under a frozen clock, with the default correction window and with none;
then what every reader of the record is told is projected to a kind and compared with the
reading: the turn in effect, the receipt the lawyer gets, the status, the vote the
approval policy counts, and the turn the agent is pushed. Hypothesis draws the texts (a
different sample each run, every text over time); ``test_every_text_reads_as_one_value``
reads all of them, without the database, every run.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from gateway.clock import FrozenClock
from gateway.inbound import pending
from gateway.inbound.claims import claim_pending
from gateway.inbound.listener import store_inbound
from gateway.inbound.worker import process_one
from gateway.intake.filing import file_request
from gateway.outbound.receipts import decision_key, reading_key
from gateway.replies import Ask, Reading, extract_reply, read_reply, read_text
from gateway.services import Services, build_services
from gateway.store.models import OutboxItem, Recipient, Request, Turn
from gateway.store.policy_models import Vote
from tests.conftest import LAWYER, REPLY_DOMAIN, make_config
from tests.replies.adversarial import ALL_TRIALS, HELD_OUT
from tests.replies.blind import SETS, load

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
WINDOW = timedelta(minutes=2)
# (reply, ask) of every set: the trials with their own asks, the blind sets with theirs.
TEXTS: list[tuple[str, Ask]] = [(t.text, t.ask) for t in [*ALL_TRIALS, *HELD_OUT]] + [
    (c.reply, Ask(c.request, c.proposed_action)) for name in SETS for c in load(name)
]
VOTES = {"approval": "approve", "conditional_approval": "approve", "rejection": "reject"}


def test_there_are_thousands_of_texts() -> None:
    assert len(TEXTS) >= 2000


def test_every_text_reads_as_one_value() -> None:
    for text, ask in TEXTS:
        reading = read_reply(read_text(extract_reply(text, None).new_text, None), ask)
        # The rules the Reading checks when it is made, and what no reading may carry.
        assert bool(reading.conditions) == (reading.kind == "conditional_approval"), text
        assert (reading.read_from is None) == (not reading.decides), text
        for condition in reading.conditions:
            assert not any(line in condition for line in reading.cut if len(line) > 3), text
            assert not any(ch in condition for ch in "\u202e\u202d\u200f\ufffd\x1b"), text


@pytest.fixture(scope="module")
def gateways(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Services]]:
    found = {}
    for window in ("2m", "0"):
        path = tmp_path_factory.mktemp(f"window{window}")
        config = make_config(path, correction_window=window, receipts="1")
        found[window] = build_services(config, clock=FrozenClock(START))
    yield found
    for services in found.values():
        services.close()


def _file(services: Services, ask: Ask) -> tuple[int, str]:
    arguments = {
        "category": "human_confirmation",
        "request": ask.request or "May we go ahead?",
        "reply_to": "https://agent.example/hook",
    }
    if ask.proposed_action:
        arguments["proposed_action"] = ask.proposed_action
    with services.db.transaction() as session:
        file_request(services, session, arguments)
    with services.db.read_only() as session:
        recipient = session.scalars(select(Recipient).order_by(Recipient.id.desc())).first()
        assert recipient is not None
        return recipient.request_id, services.tokens.reply_address(recipient.id, REPLY_DOMAIN)


def _reply(services: Services, address: str, reference: str, text: str) -> None:
    raw = (
        f"From: {LAWYER}\r\nTo: {address}\r\nSubject: Re: [{reference}]\r\n"
        f"Message-ID: <{abs(hash((text, address)))}@law.example>\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\n"
    ).encode() + text.replace("\n", "\r\n").encode("utf-8")
    inbound_id = store_inbound(services, raw, "127.0.0.1", LAWYER, [address])
    assert inbound_id in claim_pending(services)
    assert process_one(services, inbound_id) == "recorded"


def _told(services: Services, request_id: int) -> dict[str, object]:
    """What each reader of the record is told, once the reading is in effect."""
    with services.db.read_only() as session:
        request = session.get(Request, request_id)
        assert request is not None
        humans = list(
            session.scalars(
                select(Turn).where(Turn.request_id == request_id, Turn.author == "human")
            )
        )
        in_effect = [t for t in humans if t.kind != pending.PENDING_KIND][-1]
        receipts = [
            i.payload
            for i in session.scalars(
                select(OutboxItem).where(
                    OutboxItem.request_id == request_id, OutboxItem.purpose == "receipt"
                )
            )
        ]
        pushed = [
            t
            for i in session.scalars(
                select(OutboxItem).where(
                    OutboxItem.request_id == request_id, OutboxItem.channel == "webhook"
                )
            )
            for t in i.payload["event"]["data"]["turns"]
            if t["author"] == "human" and t["kind"] != pending.PENDING_KIND
        ]
        votes = [
            v.decision for v in session.scalars(select(Vote).where(Vote.request_id == request_id))
        ]
        return {
            "turn": in_effect,
            "receipt": receipts[0] if receipts else None,
            "status": request.status,
            "votes": votes,
            "pushed": pushed,
        }


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=st.sampled_from(TEXTS), window=st.sampled_from(["2m", "0"]))
def test_receipt_push_status_thread_and_tally_agree(
    gateways: dict[str, Services], case: tuple[str, Ask], window: str
) -> None:
    text, ask = case
    services = gateways[window]
    clock = services.clock
    assert isinstance(clock, FrozenClock)
    request_id, address = _file(services, ask)
    with services.db.read_only() as session:
        request = session.get(Request, request_id)
        assert request is not None
        reference = request.reference
    _reply(services, address, reference, text)
    clock.advance(WINDOW)
    pending.settle_due(services)
    told = _told(services, request_id)
    turn = told["turn"]
    assert isinstance(turn, Turn)
    reading = turn.data.get("reading")
    assert isinstance(reading, dict)
    kind: str = reading["kind"]
    # The turn in effect is the reading, unchanged.
    assert turn.kind == kind and turn.data.get("conditions", []) == reading["conditions"]
    Reading(reading["kind"], tuple(reading["conditions"]), reading["read_from"])  # its rules hold
    # The lawyer's receipt says the same.
    assert decision_key(turn) == reading_key(kind)
    receipt = told["receipt"]
    if isinstance(receipt, dict):
        assert receipt["conditions"] == reading["conditions"]
    # The vote counted is the reading's, and only a decision's.
    assert told["votes"] == ([VOTES[kind]] if kind in VOTES else [])
    # What the agent is pushed is the same turn, with the same reading.
    for pushed in told["pushed"]:  # type: ignore[attr-defined]
        assert pushed["kind"] == kind and pushed["reading"] == reading
        assert pushed.get("conditions", []) == reading["conditions"]
    # Never an answer either way from a reply that decides nothing.
    if kind in ("reply", "no_answer"):
        assert told["status"] in ("recorded", "reviewed", "answered")
        assert told["votes"] == []
