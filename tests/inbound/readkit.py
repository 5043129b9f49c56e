"""What the reading tests share: a reply of a given size, and the decision a reading gave."""

from __future__ import annotations

from gateway.inbound.mailparse import ParsedMail
from gateway.replies import DecisionKind, TextReading


def decided(parsed: object) -> DecisionKind | None:
    assert isinstance(parsed, ParsedMail) and isinstance(parsed.decision, TextReading)
    return parsed.decision.decision.kind


def reply(text: str, *, padding: int = 8_000) -> bytes:
    """A reply large enough for the reading process (a quoted history of ``padding`` lines)."""
    return (
        "From: Dana <counsel@lawfirm.example>\r\nTo: reply+x@hfa.example\r\n"
        "Subject: Re: [HFA-00001] Legal review\r\nMessage-ID: <a@lawfirm.example>\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\n"
        f"{text}\r\n" + "> quoted line of the original email\r\n" * padding
    ).encode()
