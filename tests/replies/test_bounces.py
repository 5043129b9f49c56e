"""read_delivery_report: the Message-IDs a report cites and each recipient's Action."""

from __future__ import annotations

import pytest

from gateway.replies.bounces import read_delivery_report


def report(*blocks: str) -> bytes:
    status = "\r\n".join(blocks)
    return (
        "From: MAILER-DAEMON@mx.example\r\nSubject: Delivery Status Notification\r\n"
        "Message-ID: <own@mx.example>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n'
        "--B\r\nContent-Type: text/plain\r\n\r\nReport.\r\n"
        "--B\r\nContent-Type: message/delivery-status\r\n\r\n"
        f"Reporting-MTA: dns; mx.example\r\n\r\n{status}\r\n"
        "--B\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        "Message-ID: <ours.1@reply.example>\r\n--B--\r\n"
    ).encode()


def block(recipient: str, action: str, status: str = "5.0.0") -> str:
    return f"Final-Recipient: rfc822; {recipient}\r\nAction: {action}\r\nStatus: {status}\r\n"


@pytest.mark.parametrize(
    ("raw", "address", "action"),
    [
        (report(block("a@x.example", "failed")), "a@x.example", "failed"),
        (report(block("a@x.example", "delayed", "4.4.7")), "a@x.example", "delayed"),
        (report(block("a@x.example", "Delivered", "2.0.0")), "A@x.example", "delivered"),
        (report(block("a@x.example", "relayed")), "a@x.example", "relayed"),
        (report(block("a@x.example", "expanded")), "a@x.example", "expanded"),
        # Each recipient by its own block.
        (
            report(block("a@x.example", "delayed"), block("b@x.example", "failed")),
            "a@x.example",
            "delayed",
        ),
        (
            report(block("a@x.example", "delayed"), block("b@x.example", "failed")),
            "b@x.example",
            "failed",
        ),
        # Not named, one failed: a failure. Not named, none failed: the first Action.
        (report(block("b@x.example", "failed")), "a@x.example", "failed"),
        (report(block("b@x.example", "delayed")), "a@x.example", "delayed"),
        # A comment after the keyword; an unknown Action reads as the worst case.
        (report(block("a@x.example", "failed (mailbox full)")), "a@x.example", "failed"),
        (report(block("a@x.example", "bogus")), "a@x.example", "failed"),
        # No status part at all: a bounce that says nothing per recipient is a failure.
        (
            b"Subject: Undelivered Mail\r\n\r\nMessage-ID: <ours.1@reply.example>\r\n",
            "a@x",
            "failed",
        ),
    ],
)
def test_the_action_per_recipient(raw: bytes, address: str, action: str) -> None:
    assert read_delivery_report(raw).action_for(address) == action


def test_the_cited_message_ids_come_from_the_same_read() -> None:
    found = read_delivery_report(report(block("a@x.example", "delayed")))
    assert found.message_ids == ["<ours.1@reply.example>"]
    assert [(r.recipient, r.action, r.status) for r in found.recipients] == [
        ("a@x.example", "delayed", "5.0.0")
    ]
