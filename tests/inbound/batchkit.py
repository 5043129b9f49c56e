"""What the batch tests share: requests filed to reply to, and their replies stored."""

from __future__ import annotations

from sqlalchemy import select

from gateway.inbound.listener import store_inbound
from gateway.intake.filing import file_request
from gateway.services import Services
from gateway.store.models import Recipient
from tests.conftest import LAWYER, REPLY_DOMAIN


def reply_addresses(services: Services, count: int) -> list[str]:
    """``count`` requests filed, one lawyer reply address each."""
    addresses = []
    for n in range(count):
        with services.db.transaction() as session:
            file_request(services, session, {"category": "legal_review", "request": f"{n}"})
            recipient = session.scalars(select(Recipient).order_by(Recipient.id.desc())).first()
            assert recipient is not None
            addresses.append(services.tokens.reply_address(recipient.id, REPLY_DOMAIN))
    return addresses


def reply(address: str, n: int) -> bytes:
    return (
        f"From: {LAWYER}\r\nTo: {address}\r\nSubject: Re: request\r\n"
        f"Message-ID: <reply-{n}@lawfirm.example>\r\n\r\nApproved.\r\n"
    ).encode()


def stored(services: Services, addresses: list[str]) -> list[int]:
    return [
        store_inbound(services, reply(a, n), "127.0.0.1", LAWYER, [a])
        for n, a in enumerate(addresses)
    ]
