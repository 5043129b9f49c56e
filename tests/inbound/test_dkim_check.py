"""The gateway's DKIM check: where it looks for signatures (verification: test_assurance)."""

from __future__ import annotations

import dkim
import pytest

from gateway.inbound import dkim_check
from gateway.inbound.dkim_check import header_section, verify_dkim


class NoKeys:
    off = False

    def txt(self, name: str) -> list[bytes]:
        return []


HEADERS = b"From: a@x.example\r\nDKIM-Signature: v=1; d=x.example\r\n"


@pytest.mark.parametrize(
    ("raw", "section"),
    [
        (HEADERS + b"\r\nbody\r\n\r\nmore\r\n", HEADERS),
        # LF line ends, as a script writes them (dkimpy reads both).
        (b"From: a@x.example\nSubject: s\n\nbody\n\n", b"From: a@x.example\nSubject: s\n"),
        # A bare-LF empty line before the CRLF one ends the headers too.
        (b"From: a@x.example\r\n\nbody\r\n\r\nmore", b"From: a@x.example\r\n"),
        (b"From: a@x.example\r\nSubject: no body", b"From: a@x.example\r\nSubject: no body"),
    ],
)
def test_the_header_section_ends_at_the_first_empty_line(raw: bytes, section: bytes) -> None:
    assert header_section(raw) == section


def test_a_signature_line_in_the_body_is_not_read_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 25 MB body is not searched: only a header field is a signature."""

    def unexpected(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("dkimpy was asked to read a message with no signature")

    monkeypatch.setattr(dkim, "DKIM", unexpected)
    forwarded = (
        b"From: a@x.example\r\nSubject: Fwd\r\n\r\nForwarded:\r\n"
        b"DKIM-Signature: v=1; d=y.example; s=s; b=AAAA\r\n" + b"x" * 1000 + b"\r\n"
    )
    assert verify_dkim(forwarded, NoKeys()) == []
    assert dkim_check._SIGNATURE.search(forwarded) is not None
