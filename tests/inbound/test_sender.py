from __future__ import annotations

from email import message_from_bytes
from email.message import EmailMessage
from email.policy import compat32, default

import pytest

from gateway.inbound.sender import verify_sender

LAWYER = "counsel@lawfirm.example"


def parse(headers: str) -> EmailMessage:
    msg = message_from_bytes((headers + "\nSubject: x\n\nbody\n").encode(), policy=default)
    assert isinstance(msg, EmailMessage)
    return msg


@pytest.mark.parametrize(
    ("headers", "ok"),
    [
        (f"From: {LAWYER}", True),
        (f"From: Dana <{LAWYER.upper()}>", True),
        (f'From: "{LAWYER}" <mallory@evil.example>', False),
        (f"From: {LAWYER} <mallory@evil.example>", False),
        (f"From: {LAWYER}, mallory@evil.example", False),
        (f"From: {LAWYER}\nFrom: mallory@evil.example", False),
        ("From: mallory@evil.example", False),
        ("From: undisclosed-recipients:;", False),
        ("X-No-From: 1", False),
        ("From: <>", False),
    ],
)
def test_from_must_be_the_one_lawyer(headers: str, ok: bool) -> None:
    assert verify_sender(parse(headers), LAWYER, "").ok is ok
    # The inbound worker parses with the cheaper compat32 policy: the verdict is the same.
    raw = (headers + "\nSubject: x\n\nbody\n").encode()
    assert verify_sender(message_from_bytes(raw, policy=compat32), LAWYER, "").ok is ok


def test_authentication_results_only_from_the_trusted_server() -> None:
    forged = parse(
        f"Authentication-Results: mx.evil.example; dmarc=fail header.from=lawfirm.example\n"
        f"From: {LAWYER}"
    )
    assert verify_sender(forged, LAWYER, "mx.ours.example").ok
    failing = parse(
        f"Authentication-Results: mx.ours.example; dkim=pass header.d=other.example;"
        f" dmarc=fail header.from=lawfirm.example\nFrom: {LAWYER}"
    )
    check = verify_sender(failing, LAWYER, "mx.ours.example")
    assert not check.ok and "DMARC" in check.reason
    dkim = parse(
        f"Authentication-Results: mx.ours.example; dkim=fail header.d=lawfirm.example\nFrom: {LAWYER}"
    )
    assert not verify_sender(dkim, LAWYER, "mx.ours.example").ok
    unaligned = parse(
        f"Authentication-Results: mx.ours.example; dkim=fail header.d=mailer.example\nFrom: {LAWYER}"
    )
    assert verify_sender(unaligned, LAWYER, "mx.ours.example").ok
    # Without a trusted server id nothing is read from these headers.
    assert verify_sender(failing, LAWYER, "").ok
