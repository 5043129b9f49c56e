"""Bounded work per message, and what the bounce address may record.

Unit tests of the inbound rooms: the parser's limits (parts, nesting, headers,
text), text the database cannot store, the bounce address, the sender policy
and the per-reference counters.
"""

from __future__ import annotations

import re
import time
import tracemalloc
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from gateway.inbound import limits
from gateway.inbound.claims import claim_pending
from gateway.inbound.listener import message_id_of, store_inbound
from gateway.inbound.sender import verify_sender
from gateway.inbound.worker import process_one
from gateway.intake.filing import file_request
from gateway.intake.ratelimit import RateLimits
from gateway.services import Services
from gateway.store.models import InboundMessage, Recipient, Turn
from tests.conftest import LAWYER, REPLY_DOMAIN

BOUNCE = f"gateway@{REPLY_DOMAIN}"


def test_message_id_with_nul_and_bad_bytes_is_stored_escaped() -> None:
    value = message_id_of(b"Message-ID: <a\x00b\xff@x.example>\r\n\r\nbody\r\n")
    assert value is not None and "\x00" not in value
    value.encode("utf-8")  # no lone surrogate
    assert value != message_id_of(b"Message-ID: <ab@x.example>\r\n\r\nbody\r\n")


# -- the worker: the bounce address never records a human turn ------------------------


def file_one(services: Services) -> tuple[dict[str, Any], str, str]:
    with services.db.transaction() as session:
        filed = file_request(services, session, {"category": "legal_review", "request": "Read it."})
        recipient = session.scalars(select(Recipient)).one()
        address = services.tokens.reply_address(recipient.id, REPLY_DOMAIN)
    return filed.result, address, address.split("+", 1)[1].split("@", 1)[0]


def test_mail_to_the_bounce_address_never_records_a_human_turn(services: Services) -> None:
    _filed, _address, token = file_one(services)
    our_message_id = f"<hfa.{token}.0123456789ab@{REPLY_DOMAIN}>"
    raw = (
        f"From: {LAWYER}\r\nTo: {BOUNCE}\r\nSubject: Re: [HFA-00001]\r\n"
        f"In-Reply-To: {our_message_id}\r\nReferences: {our_message_id}\r\n"
        "Message-ID: <human@lawfirm.example>\r\n\r\nApproved.\r\n"
    ).encode()
    inbound_id = store_inbound(services, raw, "127.0.0.1", LAWYER, [BOUNCE])
    assert claim_pending(services) == [inbound_id]
    outcome = process_one(services, inbound_id)
    assert outcome != "recorded"
    with services.db.read_only() as session:
        humans = list(session.scalars(select(Turn).where(Turn.author == "human")))
        row = session.get(InboundMessage, inbound_id)
    assert humans == []
    assert row is not None and row.state == "done"


# -- sender policy ----------------------------------------------------------------------


def message(headers: str) -> EmailMessage:
    # The trusted server's headers stand on top, above the message's own.
    msg = message_from_bytes(
        (f"{headers}\n" * bool(headers) + f"From: {LAWYER}\nSubject: x\n\nbody\n").encode(),
        policy=default,
    )
    assert isinstance(msg, EmailMessage)
    return msg


def test_trusted_authserv_id_is_compared_without_case() -> None:
    check = verify_sender(
        message("Authentication-Results: MX.GATEWAY.TEST; dmarc=fail"), LAWYER, "mx.gateway.test"
    )
    assert not check.ok


@pytest.mark.parametrize(
    ("headers", "ok"),
    [
        ("", False),
        ("Authentication-Results: mx.gateway.test; dmarc=none", False),
        (
            "Authentication-Results: mx.gateway.test; dkim=pass header.d=evil.test; dmarc=none",
            False,
        ),
        ("Authentication-Results: mx.gateway.test; spf=fail; dmarc=none", False),
        ("Authentication-Results: other.test; dmarc=pass", False),
        ("Authentication-Results: mx.gateway.test; dmarc=pass header.from=lawfirm.example", True),
        ("Authentication-Results: mx.gateway.test; dkim=pass header.d=lawfirm.example", True),
    ],
)
def test_required_authentication_needs_a_trusted_pass(headers: str, ok: bool) -> None:
    check = verify_sender(message(headers), LAWYER, "mx.gateway.test", require_authenticated=True)
    assert check.ok is ok, check
    if ok:
        assert "mx.gateway.test" in check.authenticated_by


def test_without_the_requirement_the_turn_says_nothing_authenticated_it() -> None:
    check = verify_sender(message(""), LAWYER, "mx.gateway.test")
    assert check.ok and check.authenticated_by == "From address only"


# -- bounded memory for per-reference counters -----------------------------------------


def test_wrong_references_do_not_grow_memory_without_bound() -> None:
    limits = RateLimits(60, 20)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(4000):
            reference = f"HFA-{i:05d}" + "x" * 12_000
            limits.token_wait("203.0.113.9", reference)
            limits.token_failed("203.0.113.9", reference)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # Before: each 12 KB reference was kept whole (4,000 x 12 KB = 48 MB).
    assert grown < 4 * 1024 * 1024, grown


# -- the line searches give what the MULTILINE regexes gave -------------------------

_OLD_DELIMITER = re.compile(rb"^--", re.MULTILINE)
_OLD_CONTAINER = re.compile(
    rb"^content-type:[ \t]*(?:\r?\n[ \t]+)?(?:multipart|message)/", re.MULTILINE | re.IGNORECASE
)
_fragments = st.sampled_from(
    [
        b"--",
        b"-",
        b"\n",
        b"\r\n",
        b"x",
        b" ",
        b"Content-Type: multipart/mixed",
        b"content-TYPE:\r\n\tMessage/rfc822",
        b"CONTENT-type: text/plain",
        b"content-type:multipart/",
    ]
)


@settings(max_examples=400, deadline=None)
@given(data=st.lists(_fragments, max_size=40).map(b"".join), n=st.integers(1, 6))
def test_line_starts_are_found_where_the_multiline_regexes_found_them(data: bytes, n: int) -> None:
    def old(pattern: re.Pattern[bytes]) -> int | None:
        starts = [m.start() for m in pattern.finditer(data)]
        return starts[n - 1] if len(starts) >= n else None

    assert limits._nth(limits._delimiter_lines(data), n) == old(_OLD_DELIMITER)
    assert limits._nth(limits._container_lines(data), n) == old(_OLD_CONTAINER)


def test_limits_cost_little_on_a_large_attachment() -> None:
    # 25 MB of base64 lines: the searches run at C speed, not a regex try per byte.
    raw = (
        b"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\n"
        + b"QUFB" * 19
        + (b"\r\n" + b"QUFB" * 19) * 320_000
        + b"\r\n--b--\r\n"
    )
    started = time.process_time()
    kept, reasons = limits.bounded(raw)
    assert kept == raw and reasons == []
    # (A regex try per byte cost some 0.35 s here.)
    assert time.process_time() - started < 0.15
