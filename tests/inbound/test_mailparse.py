"""The parser's limits (parts, nesting, headers, text): bounded work per message, the top kept."""

from __future__ import annotations

import pytest

from gateway.inbound.mailparse import MAX_DEPTH, MAX_PARTS, MAX_TEXT_CHARS, parse
from tests.budget import cpu_budget


def parts_message(parts: int) -> bytes:
    return (
        "From: a@b.example\r\nSubject: x\r\nMIME-Version: 1.0\r\n"
        "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n"
        "Approved.\r\n" + "--b\r\n\r\nx\r\n" * parts + "--b--\r\n"
    ).encode()


def nested_message(depth: int) -> bytes:
    head = "".join(
        f"Content-Type: multipart/mixed; boundary=n{i}\r\n\r\n--n{i}\r\n" for i in range(depth)
    )
    return (
        "From: a@b.example\r\nSubject: x\r\nMIME-Version: 1.0\r\n"
        "Content-Type: multipart/mixed; boundary=top\r\n\r\n--top\r\n"
        "Content-Type: text/plain\r\n\r\nApproved.\r\n--top\r\n" + head + "deep\r\n--top--\r\n"
    ).encode()


@pytest.mark.parametrize("parts", [MAX_PARTS * 100, 300_000])
def test_many_parts_are_read_to_the_limit_in_bounded_time(parts: int) -> None:
    with cpu_budget(10.0):
        mail = parse(parts_message(parts))
    assert mail.text_plain is not None and mail.text_plain.startswith("Approved.")
    assert any("parts" in reason for reason in mail.truncated)


def test_a_message_under_every_limit_is_not_marked_truncated() -> None:
    mail = parse(parts_message(10))
    assert mail.truncated == []


def test_deep_nesting_is_cut_at_the_limit_and_the_top_kept() -> None:
    with cpu_budget(10.0):
        mail = parse(nested_message(MAX_DEPTH * 50))
    assert mail.text_plain is not None and "Approved." in mail.text_plain
    assert any("nest" in reason for reason in mail.truncated)


def test_nested_rfc822_messages_do_not_recurse_without_end() -> None:
    inner = "Content-Type: message/rfc822\r\n\r\n" * 2000
    raw = (
        "From: a@b.example\r\nSubject: x\r\nMIME-Version: 1.0\r\n"
        "Content-Type: multipart/mixed; boundary=t\r\n\r\n--t\r\nContent-Type: text/plain\r\n\r\n"
        "Approved.\r\n--t\r\n" + inner + "\r\nend\r\n--t--\r\n"
    ).encode()
    mail = parse(raw)
    assert mail.text_plain is not None and "Approved." in mail.text_plain


def test_fifty_thousand_headers_are_bounded() -> None:
    raw = (
        "From: a@b.example\r\n" + "X-H: v\r\n" * 50_000 + "Subject: s\r\n\r\nApproved.\r\n"
    ).encode()
    with cpu_budget(10.0):
        mail = parse(raw)
    assert any("header" in reason for reason in mail.truncated)
    assert mail.text_plain is not None and "Approved." in mail.text_plain


def test_text_over_the_limit_is_cut_after_the_top() -> None:
    body = "Approved.\n" + "> quoted\n" * (MAX_TEXT_CHARS // 5)
    raw = ("From: a@b.example\r\nSubject: x\r\n\r\n" + body).encode()
    mail = parse(raw)
    assert mail.text_plain is not None and len(mail.text_plain) <= MAX_TEXT_CHARS
    assert mail.text_plain.startswith("Approved.")
    assert any("text" in reason for reason in mail.truncated)
