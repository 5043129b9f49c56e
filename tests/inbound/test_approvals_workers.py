"""Three real inbound worker processes record the replies of many approvers at once.

The replies (votes, changed votes, duplicates, a lawyer's other address) are sent
over SMTP to a gateway that only listens and stores; then three processes record
them with the gateway's own worker code. Each request's outcome must be its
policy over its votes as committed, each vote counted once, the outcome pushed once.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import uuid
from collections import Counter
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from gateway.app import Gateway
from gateway.policy import evaluate, from_json
from gateway.services import build_services
from gateway.store.models import InboundMessage, OutboxItem, Recipient, Turn
from gateway.store.policy_models import RequestPolicy
from gateway.store.votes import vote_log
from tests.conftest import SmtpSink, make_config
from tests.mailkit import send

ROOT = Path(__file__).resolve().parents[2]
COUNSEL, PARTNER, GC = "counsel@firm.test", "partner@firm.test", "gc@firm.test"
COUNSEL_HOME = "counsel.home@mail.test"
SETTINGS = {
    "lawyers": f"{COUNSEL}|{COUNSEL_HOME},{PARTNER},{GC}",
    "policies": f"legal_review=2 of {COUNSEL},{PARTNER},{GC} wait; "
    f"human_confirmation=2 of {COUNSEL},{PARTNER},{GC}; "
    f"physical_action=all of {COUNSEL},{PARTNER},{GC}",
    "receipts": "0",
}
CATEGORIES = ("legal_review", "human_confirmation", "physical_action")


def _reply(to: str, sender: str, text: str, message_id: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = "Re: your request"
    msg["Message-ID"] = message_id
    msg.set_content(f"{text}\n")
    return msg


def _replies(services: Any, rng: random.Random) -> list[EmailMessage]:
    """For each approver of each request, a few votes in a random order."""
    domain = services.config.reply_domain
    with services.db.read_only() as session:
        recipients = list(session.scalars(select(Recipient).order_by(Recipient.id)))
    mails = []
    for recipient in recipients:
        address = services.tokens.reply_address(recipient.id, domain)
        for _ in range(rng.choice((0, 1, 1, 2))):
            sender = (
                COUNSEL_HOME
                if recipient.address == COUNSEL and rng.random() < 0.5
                else (recipient.address)
            )
            text = rng.choice(("Approved.", "Rejected.", "APPROVE", "REJECT"))
            mail = _reply(address, sender, text, f"<{uuid.uuid4().hex}@firm.test>")
            # A redelivered copy now and then: the same Message-ID, recorded once.
            mails += [mail, mail] if rng.random() < 0.1 else [mail]
    rng.shuffle(mails)
    return mails


def _outcome_pushes(session: Any, request_id: int) -> int:
    count = 0
    for item in session.scalars(
        select(OutboxItem).where(OutboxItem.request_id == request_id, OutboxItem.purpose == "push")
    ):
        data = item.payload["event"]["data"]
        kinds = [t["kind"] for t in data["turns"]]
        if data.get("policy") and "policy_conflict" not in kinds:
            count += 1
    return count


def _superseded_answers(session: Any) -> int:
    """The replies recorded as not in effect, each checked to have been received before
    another recorded answer of the same lawyer on the same request."""
    recorded = {
        row.id: (row.recipient_id, row.received_at)
        for row in session.scalars(
            select(InboundMessage).where(InboundMessage.outcome == "recorded")
        )
    }
    answers = [
        (turn, *recorded[turn.data["inbound_id"]])
        for turn in session.scalars(select(Turn).where(Turn.author == "human"))
        if turn.data.get("inbound_id") in recorded
    ]
    superseded = [a for a in answers if "superseded" in a[0].data]
    for turn, recipient_id, received_at in superseded:
        assert turn.data["decision"] is None and turn.kind == "reply"
        assert any(
            "superseded" not in other.data and who == recipient_id and when > received_at
            for other, who, when in answers
        ), turn.data
    return len(superseded)


async def test_three_inbound_workers_count_each_vote_once_and_push_once(
    tmp_path: Path, sink: SmtpSink, database_url: str
) -> None:
    config = make_config(
        tmp_path,
        database_url=database_url,
        smtp_relay=f"127.0.0.1:{sink.port}",
        **SETTINGS,
    )
    services = build_services(config)
    gateway = Gateway(services, roles=("http", "smtp"))
    await gateway.start()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}") as http:
            for n in range(24):
                body = {
                    "category": CATEGORIES[n % 3],
                    "request": f"Pay invoice {n}?",
                    "reply_to": "agent@agents.example",
                }
                assert (await http.post("/v1/requests", json=body)).status_code == 201
        mails = _replies(services, random.Random(23))
        assert gateway.smtp_port is not None
        for mail in mails:
            await send(mail, gateway.smtp_port, sender=str(mail["From"]))
    finally:
        await gateway.stop()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    go = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.inbound.reply_worker",
                database_url,
                str(tmp_path),
                json.dumps(SETTINGS),
                str(go),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for worker in workers:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
    go.touch()
    outcomes: Counter[str] = Counter()
    errors = []
    for worker in workers:
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err[-2000:]
        errors.append(err)
        # Each process recorded some of the replies: they ran side by side.
        assert "recorded" in out.split()
        outcomes.update(out.split())
    with services.db.read_only() as session:
        stored = list(session.scalars(select(InboundMessage.outcome)))
        assert None not in stored and set(stored) <= {"recorded", "duplicate"}, [
            e[-6000:] for e in errors
        ]
        recorded = stored.count("recorded")
        decided = 0
        for row in session.scalars(select(RequestPolicy)):
            log = vote_log(session, row.request_id)
            want = evaluate(from_json(row.rule), log)
            assert row.outcome == want.outcome
            assert _outcome_pushes(session, row.request_id) == (1 if want.decided else 0)
            decided += want.decided
        votes = sum(
            len(vote_log(session, r)) for r in session.scalars(select(RequestPolicy.request_id))
        )
        superseded = _superseded_answers(session)
    # Every recorded reply is one vote, none lost, none counted twice; but for an answer
    # a worker read only after a later one of the same lawyer was recorded: kept on the
    # record, it never takes effect (the later one is the lawyer's last word).
    assert votes + superseded == recorded == outcomes["recorded"]
    assert recorded == len({str(m["Message-ID"]) for m in mails})
    assert decided >= 8
    services.close()
