"""A message's wire form for DATA: the same bytes aiosmtplib would send, made cheaper."""

from __future__ import annotations

import pytest
from aiosmtplib.protocol import PERIOD_REGEX, normalize_message_line_endings

from gateway.outbound.smtp_wire import wire_form


@pytest.mark.parametrize(
    "message",
    [
        b"From: gw@hfa.example\nTo: counsel@lawfirm.example\nSubject: s\n\nbody\n",
        b".a first line that starts with a dot\n..two\n.\nmiddle\n.\n",
        b"no final newline\n.last",
        b"\n\n.\n\n",
        b"",
        b"ends with a dot line\n.",
        # Not the gateway's own: CR LF, a bare CR, mixed endings go aiosmtplib's way.
        b"crlf\r\n.dot\r\nbare\rcr\n.lf\n",
    ],
)
def test_the_wire_form_is_what_aiosmtplib_sends(message: bytes) -> None:
    # aiosmtplib's DATA: line endings made CRLF, a CRLF at the end, dots doubled, the dot.
    expected = PERIOD_REGEX.sub(b"..", normalize_message_line_endings(message)) + b".\r\n"
    assert wire_form(message) == expected
