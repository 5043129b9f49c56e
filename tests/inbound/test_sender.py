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


TRUSTED_ID = "mx.ours.example"
THEIR_RECEIVED = "Received: from mail.lawfirm.example by relay.lawfirm.example; 1 Dec 2026"
OUR_RECEIVED = "Received: from relay.lawfirm.example by mx.ours.example (Postfix); 1 Dec 2026"


@pytest.mark.parametrize(
    ("headers", "ok"),
    [
        # The trusted server's results above its own Received header: believed.
        (
            f"Authentication-Results: {TRUSTED_ID}; dmarc=pass header.from=lawfirm.example\n"
            f"{OUR_RECEIVED}\n{THEIR_RECEIVED}\nFrom: {LAWYER}",
            True,
        ),
        # A filter (OpenDMARC on Postfix) inserts them right under that Received: believed.
        (
            f"{OUR_RECEIVED}\n"
            f"Authentication-Results: {TRUSTED_ID}; dmarc=pass header.from=lawfirm.example\n"
            f"{THEIR_RECEIVED}\nFrom: {LAWYER}",
            True,
        ),
        # A content filter's second pass on the trusted server adds a Received naming it.
        (
            "Received: from localhost by mx.ours.example (Postfix); 1 Dec 2026\n"
            f"{OUR_RECEIVED}\n"
            f"Authentication-Results: {TRUSTED_ID}; dmarc=pass header.from=lawfirm.example\n"
            f"{THEIR_RECEIVED}\nFrom: {LAWYER}",
            True,
        ),
        # Under a Received of another host: it came with the message, forged.
        (
            f"{OUR_RECEIVED}\n{THEIR_RECEIVED}\n"
            f"Authentication-Results: {TRUSTED_ID}; dmarc=pass header.from=lawfirm.example\n"
            f"From: {LAWYER}",
            False,
        ),
        # A pass with our id that came with the message (below an earlier hop): forged.
        (
            f"Authentication-Results: {TRUSTED_ID}; dmarc=none\n{OUR_RECEIVED}\n"
            f"{THEIR_RECEIVED}\n"
            f"Authentication-Results: {TRUSTED_ID}; dmarc=pass header.from=lawfirm.example\n"
            f"From: {LAWYER}",
            False,
        ),
        # Among the author's headers, with no trusted header at all: forged.
        (
            f"From: {LAWYER}\n"
            f"Authentication-Results: {TRUSTED_ID}; dmarc=pass header.from=lawfirm.example",
            False,
        ),
        # The same, in another case and folded: the id compares without case.
        (
            f"Authentication-Results: {TRUSTED_ID}; dmarc=none\nFrom: {LAWYER}\n"
            "Authentication-Results: MX.Ours.Example;\n\tdmarc=pass header.from=lawfirm.example",
            False,
        ),
        # Another server's header among the author's: ignored, as before.
        (
            f"From: {LAWYER}\nAuthentication-Results: mx.ours.example.evil; dmarc=pass",
            True,
        ),
    ],
)
def test_only_the_results_the_trusted_server_wrote_count(headers: str, ok: bool) -> None:
    check = verify_sender(parse(headers), LAWYER, TRUSTED_ID)
    assert check.ok is ok, check.reason
    if not ok:
        assert "may be forged" in check.reason and TRUSTED_ID in check.reason


def test_a_forged_pass_never_authenticates_when_authentication_is_required() -> None:
    forged = parse(
        f"Authentication-Results: {TRUSTED_ID}; dmarc=none\nFrom: {LAWYER}\n"
        f"Authentication-Results: {TRUSTED_ID}; dmarc=pass header.from=lawfirm.example"
    )
    check = verify_sender(forged, LAWYER, TRUSTED_ID, require_authenticated=True)
    assert not check.ok and not check.authenticated_by
    genuine = parse(
        f"{OUR_RECEIVED}\n"
        f"Authentication-Results: {TRUSTED_ID}; dmarc=pass header.from=lawfirm.example\n"
        f"From: {LAWYER}"
    )
    check = verify_sender(genuine, LAWYER, TRUSTED_ID, require_authenticated=True)
    assert check.ok and check.authenticated_by == f"dmarc=pass at {TRUSTED_ID}"
