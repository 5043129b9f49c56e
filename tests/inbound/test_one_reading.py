"""One reading per reply, told the same to everyone: the turn, the status, the receipt,
the push and the vote all follow the reader's ``Reading``, through the real worker on a
real database under a frozen clock (the fixtures of ``test_pending``)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from gateway.clock import FrozenClock
from gateway.inbound import pending
from gateway.outbound.receipts import decision_key, reading_key
from gateway.services import Services
from gateway.store.models import OutboxItem, Request, Turn
from tests.inbound.test_pending import WINDOW, clock, file_one, typed, windowed

__all__ = ["clock", "windowed"]  # fixtures


def receipts(services: Services) -> list[dict[str, Any]]:
    with services.db.read_only() as session:
        items = session.scalars(
            select(OutboxItem).where(OutboxItem.purpose == "receipt").order_by(OutboxItem.id)
        )
        return [dict(item.payload) for item in items]


def pushes(services: Services) -> list[OutboxItem]:
    with services.db.read_only() as session:
        found = list(session.scalars(select(OutboxItem).where(OutboxItem.channel == "webhook")))
        session.expunge_all()
        return found


def last_human(services: Services) -> Turn:
    with services.db.read_only() as session:
        turn = session.scalars(
            select(Turn).where(Turn.author == "human").order_by(Turn.seq.desc())
        ).first()
        assert turn is not None
        session.expunge_all()
        return turn


def status(services: Services) -> str:
    with services.db.read_only() as session:
        request = session.get(Request, 1)
        assert request is not None
        return request.status


# (reply, the reading's kind) as a careful reader records them; the review's own cases.
CASES = [
    # A yes to "May we sign?" with a condition: a conditional approval, held, and told so.
    ("Yes, please sign it once Finance has signed off.", "conditional_approval"),
    ("Ja, bitte buchen.", "approval"),
    ("Yes, please hold.", "reply"),
    ("Approved.\n\nDana", "approval"),
    ("Approved, again.", "approval"),
    (
        "Approved.\n\nDana Weber\nPartner\nWeber & Co. Rechtsanwälte mbB\n"
        "Friedrichstraße 123, 10117 Berlin\nT: +49 30 1234567\nd.weber@weber-co.example",
        "approval",
    ),
    (
        "Approved, as long as the cap stays at EUR 10,000.\n\nJohn Smith\n"
        "General Counsel | Acme Ltd\n+44 20 7946 0000",
        "conditional_approval",
    ),
    ("Approved - see HFA-00012.", "reply"),
    ("Don't sign it.", "rejection"),
    ("I'll look at it tomorrow.", "acknowledgement"),
]


@pytest.mark.parametrize(("text", "kind"), CASES, ids=[c[0][:30] for c in CASES])
def test_receipt_status_push_and_thread_say_what_was_read(
    windowed: Services, clock: FrozenClock, text: str, kind: str
) -> None:
    address = file_one(windowed)
    assert typed(windowed, address, text) == "recorded"
    held = last_human(windowed)
    reading = held.data["reading"]
    assert reading["kind"] == kind, reading
    decides = kind not in ("reply", "no_answer")
    # A decision read from typed text is held first, and nothing is pushed meanwhile.
    assert held.kind == (pending.PENDING_KIND if decides else kind)
    assert pushes(windowed) == [] if decides else True
    # The receipt says exactly what was read, at once.
    (receipt,) = receipts(windowed)
    assert decision_key(held) == reading_key(kind)
    if kind == "conditional_approval":
        assert receipt["conditions"] == reading["conditions"] != []
    else:
        assert receipt["conditions"] == []
    if not decides:
        # One rule for a reply without a decision: read, not answered.
        assert status(windowed) == "reviewed"
        return
    assert status(windowed) == "recorded"
    clock.advance(WINDOW)
    assert pending.settle_due(windowed) == 1
    took = last_human(windowed)
    assert took.kind == kind and took.data["reading"] == reading
    assert decision_key(took) == reading_key(kind)
    assert took.data.get("conditions", []) == reading["conditions"]
    (push,) = pushes(windowed)
    # What the agent is pushed: the same turn, the same reading, the same conditions.
    told = [t for t in push.payload["event"]["data"]["turns"] if t["author"] == "human"][-1]
    assert told["kind"] == kind and told["reading"] == reading
    assert told.get("conditions", []) == reading["conditions"]


def test_a_signature_block_is_never_a_condition_and_is_kept(windowed: Services) -> None:
    address = file_one(windowed)
    typed(
        windowed,
        address,
        "Approved, only up to EUR 10,000.\n\nJohn Smith\nGeneral Counsel | Acme Ltd\n"
        "+44 20 7946 0000",
    )
    turn = last_human(windowed)
    assert turn.data["reading"]["conditions"] == ["only up to EUR 10,000."]
    assert turn.data["signature"] == [
        "John Smith",
        "General Counsel | Acme Ltd",
        "+44 20 7946 0000",
    ]
    assert "John Smith" not in turn.body
