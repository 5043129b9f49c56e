"""detect_automatic, is_own_loop and find_bounced_message_ids."""

from __future__ import annotations

import pytest

from gateway.replies import AutomaticKind, ReplyError, detect_automatic
from gateway.replies.automatic import is_own_loop
from gateway.replies.bounces import find_bounced_message_ids
from tests.replies.cases import CASES, Case

AUTO, BOUNCE = AutomaticKind.AUTO_REPLY, AutomaticKind.BOUNCE


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_automatic_kind_of_case(case: Case) -> None:
    assert detect_automatic(case.headers, case.subject, case.content_type) is case.automatic


@pytest.mark.parametrize(
    ("headers", "subject", "content_type", "kind"),
    [
        ({"auto-submitted": "auto-replied; owner-email=x@y"}, "Re: x", None, AUTO),
        ({"auto-submitted": "No"}, "Re: x", None, None),
        ({"auto-submitted": ""}, "Re: x", None, None),
        ({"x-autorespond": "1"}, "Re: x", None, AUTO),
        ({"precedence": "junk"}, "Re: x", None, AUTO),
        ({"precedence": "list"}, "Re: x", None, AUTO),
        ({"precedence": "auto_reply"}, "Re: x", None, AUTO),
        ({"precedence": "first-class"}, "Re: x", None, None),
        ({"x-auto-response-suppress": "DR, OOF, AutoReply"}, "Re: x", None, AUTO),
        ({}, "Autoreply: [HFA-1]", None, AUTO),
        ({}, "Auto-Reply: [HFA-1]", None, AUTO),
        ({}, "Automatische Antwort: [HFA-1]", None, AUTO),
        ({}, "Absence: [HFA-1]", None, AUTO),
        ({}, "Out of the office: [HFA-1]", None, AUTO),
        ({}, "Re: [HFA-1] Automatic reply handling clause", None, None),
        ({}, "Bounce", "multipart/report; report-type=delivery-status; b=1", BOUNCE),
        ({}, "x", "MULTIPART/REPORT; REPORT-TYPE=DELIVERY-STATUS", BOUNCE),
        ({}, "x", "multipart/report; report-type=disposition-notification", None),
        ({"return-path": "<>"}, "Delivery Status Notification (Failure)", None, BOUNCE),
        ({"return-path": "< >"}, "Mail delivery failed", None, BOUNCE),
        ({"return-path": "<>"}, "Re: [HFA-1] Undeliverable goods clause", None, None),
        ({"x-failed-recipients": "jane@example.com"}, "x", None, BOUNCE),
        ({"from": "postmaster@example.com"}, "Undelivered Mail Returned to Sender", None, BOUNCE),
        ({}, "Undeliverable: x", None, None),
        ({}, None, None, None),
    ],
)
def test_detect_automatic(
    headers: dict[str, str], subject: str | None, content_type: str | None, kind: object
) -> None:
    assert detect_automatic(headers, subject, content_type) is kind


def test_detect_automatic_only_raises_reply_error() -> None:
    with pytest.raises(ReplyError):
        detect_automatic(None, "x", None)  # type: ignore[arg-type]


def test_is_own_loop() -> None:
    assert is_own_loop({"x-hfa-loop": "hfa.example.com"}, "HFA.example.com")
    assert not is_own_loop({"x-hfa-loop": "other.example"}, "hfa.example.com")
    assert not is_own_loop({}, "hfa.example.com")
    assert not is_own_loop({"x-hfa-loop": "hfa.example.com"}, " ")
    assert is_own_loop({"x-custom": "hfa.example.com"}, "hfa.example.com", "X-Custom")


DSN = b"""\
Return-Path: <>
From: Mail Delivery System <MAILER-DAEMON@mx.example.com>
To: review@hfa.example.com
Subject: Undelivered Mail Returned to Sender
Message-ID: <dsn-1@mx.example.com>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B"

--B
Content-Type: text/plain

The mail system could not deliver your message.
   Message-ID: <pasted@hfa.example.com>

--B
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.com
Final-Recipient: rfc822; jane@doe-partners.example
Action: failed
Status: 5.1.1

--B
Content-Type: message/rfc822

From: HFA Gateway <review@hfa.example.com>
To: jane@doe-partners.example
Subject: [HFA-00042] Legal review
Message-ID: <hfa-00042.1@hfa.example.com>

Please review.

--B--
"""

HEADERS_ONLY_DSN = b"""\
From: postmaster@example.com
Message-ID: <dsn-2@example.com>
Content-Type: multipart/report; report-type=delivery-status; boundary="C"

--C
Content-Type: text/plain

Delivery failed.

--C
Content-Type: text/rfc822-headers

From: HFA Gateway <review@hfa.example.com>
Message-ID: <hfa-00043.1@hfa.example.com>
Subject: [HFA-00043] Legal review

--C--
"""


def test_bounced_message_ids_from_rfc822_part_and_body() -> None:
    assert find_bounced_message_ids(DSN) == [
        "<pasted@hfa.example.com>",
        "<hfa-00042.1@hfa.example.com>",
    ]


def test_bounced_message_ids_from_headers_part() -> None:
    assert find_bounced_message_ids(HEADERS_ONLY_DSN) == ["<hfa-00043.1@hfa.example.com>"]


@pytest.mark.parametrize(
    "raw", [b"", b"\x00\xff garbage", b"Subject: x\n\nno ids here", b"Content-Type: multipart/"]
)
def test_bounced_message_ids_of_garbage(raw: bytes) -> None:
    assert find_bounced_message_ids(raw) == []


def test_bounced_message_ids_rejects_non_bytes() -> None:
    with pytest.raises(ReplyError):
        find_bounced_message_ids("text")  # type: ignore[arg-type]
