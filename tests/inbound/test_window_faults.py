"""The correction window under faults: every order of receive, read, crash and window end.

A lawyer types "Approved." (held for the window), then corrects it. The clock is
a frozen clock that the test moves (it leaps past a window's end in one step, as
a stalled or restarted worker sees it); the worker is the real one, fed by
hand: a read claims and records what is waiting, a crash claims and records
nothing (a kill -9 between the lease and the commit: the rows wait for their
lease). Whatever the order, the answer the lawyer last sent in time is the one
that takes effect first: the approval only when the correction was received
after the window's end, never because the correction was read late.

Each order runs on its own request (its own lawyer token) in one database per
test, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from gateway.clock import FrozenClock
from gateway.inbound import pending
from gateway.inbound.claims import claim_pending
from gateway.inbound.listener import store_inbound
from gateway.inbound.worker import process_batch
from gateway.intake.filing import file_request
from gateway.services import Services, build_services
from gateway.store import arrivals
from gateway.store.models import OutboxItem, Recipient, Request, Turn
from tests.conftest import LAWYER, REPLY_DOMAIN, make_config

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
WINDOW = timedelta(seconds=60)
LEASE = timedelta(seconds=20)
# Between two steps a little time passes, so no two replies arrive at one moment.
STEP = timedelta(seconds=1)
# A window's end as the clock can leap over it: past every window begun so far and
# every lease a crash left.
LEAP = WINDOW + LEASE + timedelta(seconds=1)

# What the lawyer sends second: an untouched REJECT link (acts at once when read) or a
# typed rejection (itself held for a window).
CORRECTIONS = {
    "reject_link": ("REJECT [{ref}]", "REJECT\r\n\r\nReasons, or what to do instead:"),
    "typed_rejection": ("Re: May we sign? [{ref}]", "Rejected, do not sign it."),
}
STEPS = ("recv0", "recv1", "read", "read", "crash", "end")


def orders() -> list[tuple[str, ...]]:
    """Every distinct order of the steps in which the approval is sent before the correction."""
    found = {o for o in itertools.permutations(STEPS) if o.index("recv0") < o.index("recv1")}
    return sorted(found)


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(START)


@pytest.fixture
def gateway(tmp_path: Path, database_url: str, clock: FrozenClock) -> Iterator[Services]:
    config = make_config(
        tmp_path,
        database_url=database_url,
        correction_window=f"{int(WINDOW.total_seconds())}s",
        lease_seconds=str(int(LEASE.total_seconds())),
        receipts="1",
    )
    services = build_services(config, clock=clock)
    yield services
    services.close()


@dataclass
class Run:
    """One order played out on one request: what the test saw happen, by its own clock."""

    services: Services
    clock: FrozenClock
    request_id: int
    address: str
    reference: str
    correction: str
    ids: dict[str, int] = field(default_factory=dict)
    received: dict[str, datetime] = field(default_factory=dict)
    read_at: dict[int, datetime] = field(default_factory=dict)

    def receive(self, which: str) -> None:
        if which == "recv0":
            subject, body = "Re: May we sign? [{ref}]", "Approved."
        else:
            subject, body = CORRECTIONS[self.correction]
        raw = (
            f"From: {LAWYER}\r\nTo: {self.address}\r\n"
            f"Subject: {subject.format(ref=self.reference)}\r\n"
            f"Message-ID: <{which}.{self.reference}@law.example>\r\n\r\n{body}\r\n"
        ).encode()
        self.ids[which] = store_inbound(self.services, raw, "127.0.0.1", LAWYER, [self.address])
        self.received[which] = self.clock.now()

    def read(self) -> None:
        """The worker claims what is waiting and records it."""
        ids = claim_pending(self.services)
        process_batch(self.services, ids)
        for inbound_id in ids:
            self.read_at.setdefault(inbound_id, self.clock.now())

    def crash(self) -> None:
        """The worker claims what is waiting and dies before its commit."""
        claim_pending(self.services)

    def end(self) -> None:
        """The clock leaps past the window's end and the job that ends windows runs."""
        self.clock.advance(LEAP)
        pending.settle_due(self.services)

    def drain(self) -> None:
        """Afterwards, everything is read and every window ends."""
        for _ in range(4):
            self.clock.advance(LEAP)
            self.read()
            pending.settle_due(self.services)

    def play(self, order: tuple[str, ...]) -> None:
        for step in order:
            self.clock.advance(STEP)
            if step.startswith("recv"):
                self.receive(step)
            else:
                getattr(self, step)()
        self.drain()


def new_request(services: Services, clock: FrozenClock, correction: str) -> Run:
    arguments = {
        "category": "human_confirmation",
        "request": "May we sign the ACME NDA today?",
        "proposed_action": "Sign and return the ACME NDA.",
        "reply_to": "https://agent.example/hook",
    }
    with services.db.transaction() as session:
        file_request(services, session, arguments)
        request = session.scalars(select(Request).order_by(Request.id.desc()).limit(1)).one()
        recipient = session.scalars(
            select(Recipient).where(Recipient.request_id == request.id)
        ).one()
        address = services.tokens.reply_address(recipient.id, REPLY_DOMAIN)
        return Run(services, clock, request.id, address, request.reference, correction)


def decisions_in_effect(run: Run) -> list[str]:
    """The decisions that took effect on the request, in order (held and superseded
    readings are not in effect)."""
    with run.services.db.read_only() as session:
        turns = session.scalars(
            select(Turn).where(Turn.request_id == run.request_id, Turn.author == "human")
        ).all()
        return [
            str(t.data["decision"])
            for t in sorted(turns, key=lambda t: t.seq)
            if t.data.get("decision") is not None
        ]


def pushes(run: Run) -> int:
    with run.services.db.read_only() as session:
        found = session.scalars(
            select(OutboxItem.id).where(
                OutboxItem.request_id == run.request_id, OutboxItem.purpose == "push"
            )
        ).all()
        return len(found)


def expected(run: Run) -> list[str]:
    """What the lawyer said, in time: the approval stands only when the correction was
    received after the window the approval's reading opened (by the test's own clock)."""
    approval_read = run.read_at.get(run.ids["recv0"])
    correction_received = run.received["recv1"]
    if approval_read is not None and correction_received >= approval_read + WINDOW:
        return ["approval", "rejection"]
    return ["rejection"]


@pytest.mark.parametrize("correction", sorted(CORRECTIONS))
def test_every_order_gives_the_answer_the_lawyer_last_sent_in_time(
    gateway: Services, clock: FrozenClock, correction: str
) -> None:
    wrong: list[str] = []
    for order in orders():
        run = new_request(gateway, clock, correction)
        run.play(order)
        got, want = decisions_in_effect(run), expected(run)
        if got != want or pushes(run) != len(want):
            wrong.append(f"{' '.join(order)}: {got} ({pushes(run)} pushes), expected {want}")
    assert wrong == [], "\n".join(wrong[:20])


def test_the_orders_include_the_review_s_faults() -> None:
    """The two orders of the review's R1: the correction acknowledged in the window but
    read after it, by a stalled worker and after a crash."""
    found = set(orders())
    assert ("recv0", "read", "recv1", "end", "read", "crash") in found
    assert ("recv0", "read", "recv1", "crash", "end", "read") in found


def test_a_reply_being_stored_at_the_window_s_end_is_waited_for_never_raced(
    gateway: Services, clock: FrozenClock
) -> None:
    """PostgreSQL: while a listener's transaction is storing a reply (it holds the shared
    fence), neither the worker nor the job that ends windows puts a due reading into
    effect: both wait for the listener's commit, then the window ends before the later
    reply counts."""
    if gateway.db.is_sqlite:
        pytest.skip("SQLite orders them by its one write lock")
    run = new_request(gateway, clock, "reject_link")
    run.receive("recv0")
    run.read()
    clock.advance(WINDOW + STEP)
    run.receive("recv1")
    with gateway.db.transaction() as listener:
        arrivals.fence(listener, exclusive=False)
        worker = threading.Thread(target=run.read)
        job = threading.Thread(target=lambda: pending.settle_due(gateway))
        worker.start()
        job.start()
        worker.join(timeout=1.0)
        job.join(timeout=1.0)
        # Both wait for the listener's commit; nothing took effect meanwhile.
        assert worker.is_alive() or job.is_alive()
        assert decisions_in_effect(run) == []
    worker.join(timeout=20)
    job.join(timeout=20)
    pending.settle_due(gateway)
    # The lawyer's answer in time first, then the later correction: as it was sent.
    assert decisions_in_effect(run) == ["approval", "rejection"]
