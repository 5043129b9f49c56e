"""The inbound worker's outcomes: every stored message ends with exactly one, nothing is lost."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from gateway.inbound.claims import claim_pending
from gateway.inbound.listener import store_inbound
from gateway.inbound.worker import MAX_ATTEMPTS, InboundWorker, process_one
from gateway.intake.filing import file_request
from gateway.services import Services
from gateway.store import blobs
from gateway.store.models import InboundMessage, Recipient
from tests.conftest import LAWYER, REPLY_DOMAIN


def file_one(services: Services) -> tuple[dict[str, Any], str]:
    with services.db.transaction() as session:
        filed = file_request(services, session, {"category": "legal_review", "request": "Read it."})
        recipient = session.scalars(select(Recipient)).one()
        address = services.tokens.reply_address(recipient.id, REPLY_DOMAIN)
    return filed.result, address


def deliver(services: Services, raw: bytes, rcpt: str, mail_from: str = LAWYER) -> str:
    inbound_id = store_inbound(services, raw, "127.0.0.1", mail_from, [rcpt])
    assert claim_pending(services) == [inbound_id]
    return process_one(services, inbound_id)


def row(services: Services, inbound_id: int = 1) -> InboundMessage:
    with services.db.read_only() as session:
        found = session.get(InboundMessage, inbound_id)
        assert found is not None
        return found


def reply(address: str, body: str = "Fine.", **headers: str) -> bytes:
    lines = [f"From: {LAWYER}", f"To: {address}", "Subject: Re: [HFA-00001]"]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n" + body + "\r\n").encode()


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00\x01\x02 not mail at all \xff\xfe",
        b"Subject: no body no from\r\n\r\n",
        b"\r\n\r\njust a body without headers",
    ],
)
def test_garbage_is_kept_as_unparseable(services: Services, raw: bytes) -> None:
    _filed, address = file_one(services)
    assert deliver(services, raw, address) == "unparseable"
    kept = row(services)
    assert kept.raw == raw and kept.state == "done"
    assert kept.turn_id is None


def test_unknown_charset_and_8bit_do_not_crash(services: Services) -> None:
    _filed, address = file_one(services)
    raw = (
        f"From: {LAWYER}\r\nTo: {address}\r\nSubject: Re: x\r\n"
        "Content-Type: text/plain; charset=x-unknown-9\r\n\r\n"
    ).encode() + "Genehmigt. Grüße\r\n".encode("latin-1")
    assert deliver(services, raw, address) == "recorded"


def test_our_own_mail_coming_back_is_a_loop(services: Services) -> None:
    _filed, address = file_one(services)
    raw = reply(address, "Looping", X_HFA_Loop=REPLY_DOMAIN)
    assert deliver(services, raw, address) == "loop"


def test_mail_to_the_bounce_address_without_reference_has_no_thread(services: Services) -> None:
    file_one(services)
    raw = reply(f"gateway@{REPLY_DOMAIN}", "Hello, who is this?")
    assert deliver(services, raw, f"gateway@{REPLY_DOMAIN}") == "no_thread"


def test_repeated_crashes_end_as_failed_and_keep_the_message(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    _filed, address = file_one(services)
    inbound_id = store_inbound(services, reply(address), "127.0.0.1", LAWYER, [address])

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("bug in a parser")

    monkeypatch.setattr("gateway.inbound.worker.process", broken)
    outcomes = []
    for _ in range(MAX_ATTEMPTS):
        assert claim_pending(services) == [inbound_id]
        outcomes.append(process_one(services, inbound_id))
    assert outcomes == ["retry"] * (MAX_ATTEMPTS - 1) + ["failed"]
    assert row(services, inbound_id).outcome == "failed"
    assert claim_pending(services) == []


def test_two_recorded_rows_of_one_request_cannot_share_a_message_id(services: Services) -> None:
    _filed, address = file_one(services)
    raw = reply(address, Message_ID="<one@lawfirm.example>")
    assert deliver(services, raw, address) == "recorded"
    second = store_inbound(services, raw, "127.0.0.1", LAWYER, [address])
    with pytest.raises(Exception) as info, services.db.transaction() as session:
        other = session.get(InboundMessage, second)
        first = session.get(InboundMessage, 1)
        assert other is not None and first is not None
        other.request_id = first.request_id
        other.outcome = "recorded"
        session.flush()
    assert isinstance(info.value.__cause__, IntegrityError) or isinstance(
        info.value, IntegrityError
    )


async def test_a_reply_read_in_its_reading_process_is_recorded_from_the_bytes_read_once(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker reads a claimed message's bytes from the store once and hands them to the
    reading process; what comes back carries them again, so no later step (the sender's
    evidence, above all) reads them from the store a second time."""
    _filed, address = file_one(services)
    inbound_id = store_inbound(
        services, reply(address, "Approved."), "127.0.0.1", LAWYER, [address]
    )
    read_again: list[int] = []
    original = blobs.raw_of

    def counted(session: Session, message: InboundMessage) -> bytes:
        read_again.append(message.id)
        return original(session, message)

    monkeypatch.setattr(blobs, "raw_of", counted)
    worker = InboundWorker(services)
    try:
        assert worker.reader.quick.wait_ready(60), "the reading process did not start"
        assert await worker.run_once() == 1
    finally:
        worker.reader.close()
    kept = row(services, inbound_id)
    assert (kept.state, kept.outcome) == ("done", "recorded")
    assert read_again == []
