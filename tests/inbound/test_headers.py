"""Headers read as the strict policy decodes them, whether or not decoding can be skipped."""

from __future__ import annotations

from email.message import Message
from email.policy import default

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.inbound.mailparse import HeaderView

NAMES = ("subject", "references", "in-reply-to", "auto-submitted", "message-id", "from")
# Printable ASCII, the characters that matter to encoded words and structure, controls.
PIECES = [chr(c) for c in range(0x20, 0x7F)] + ["\t", "=?", "?=", "\x00", "\x1b", "\x7f", "é"]
VALUES = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def strict(name: str, value: str) -> str:
    try:
        return str(default.header_factory(name, value))
    except Exception:
        return value


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_every_header_reads_as_the_strict_policy_decodes_it(value: str) -> None:
    message = Message()
    for name in NAMES:
        message[name] = value
    view = HeaderView(message)
    for name in NAMES:
        assert view[name] == strict(name, value)


def test_encoded_words_are_decoded() -> None:
    message = Message()
    message["Subject"] = "=?utf-8?q?Re:_=C3=A9t=C3=A9?="
    message["References"] = "<a@b>  <c@d>"
    view = HeaderView(message)
    assert view["subject"] == "Re: été"
    assert view["references"] == "<a@b>  <c@d>"
