"""Outgoing mail written straight to bytes: headers, then a text and an HTML part.

The standard library's ``email`` package parses every header it is handed and
re-folds it when the message is flattened; for the gateway's own messages,
whose headers are built from known values, that was most of the cost of
sending one. This writer produces the same structure (multipart/alternative,
UTF-8 parts, quoted-printable where a line or a character needs it, RFC 2047
encoded words for non-ASCII header text) in a fraction of the time, and any
reader parses it like the ``email`` package's own output.
"""

from __future__ import annotations

import binascii
import secrets
from collections.abc import Iterable
from email.message import EmailMessage
from email.utils import formataddr

MAX_LINE = 78
# Headers holding addresses: RFC 2047 words are not allowed in an address, so a
# non-ASCII one goes through the email package, which knows how to write it.
ADDRESS_HEADERS = frozenset({"from", "to", "cc", "reply-to", "sender"})
# 42 octets make 56 base64 characters: with the =?utf-8?b? frame, a word fits a line.
ENCODED_CHUNK = 42


def _fold(name: str, value: str) -> str:
    """``Name: value`` folded at spaces so lines stay near 78 characters."""
    if len(name) + 2 + len(value) <= MAX_LINE:
        # Most headers fit on their line: nothing to fold.
        return f"{name}: {value}"
    line = f"{name}:"
    lines: list[str] = []
    for word in value.split(" "):
        if len(line) + 1 + len(word) > MAX_LINE and line not in ("", f"{name}:"):
            lines.append(line)
            line = ""
        line += " " + word
    lines.append(line)
    return "\n".join(lines)


def header_line(name: str, value: str) -> str:
    """One header, folded; non-ASCII text as RFC 2047 encoded words."""
    if "\r" in value or "\n" in value:
        # Every value here was flattened by its builder; a line break would be a new header.
        raise ValueError(f"header {name} holds a line break")
    if value.isascii():
        return _fold(name, value)
    return f"{name}: " + "\n ".join(_encoded_words(value))


def display_address(name: str, address: str) -> str:
    """``Name <address>`` for a From header, ASCII only, whatever the name holds.

    An ASCII name is quoted where it needs to be; any other name is written as RFC 2047
    encoded words, so the message still takes the fast path. Line breaks never get in.
    """
    flat = " ".join(name.replace("\r", " ").replace("\n", " ").split())
    if not flat:
        return address
    # One RFC 2047 word for a non-ASCII name: readers join words split mid-name with a space.
    return formataddr((flat, address), charset="utf-8")


def _encoded_words(value: str) -> list[str]:
    """RFC 2047 base64 words of at most ENCODED_CHUNK octets each, never splitting a character.

    Each word takes as many whole characters as fit: the octets are cut every
    ENCODED_CHUNK, each cut moved back to the start of the character it would split.
    """
    octets = value.encode("utf-8")
    words: list[str] = []
    start = 0
    while start < len(octets):
        end = min(start + ENCODED_CHUNK, len(octets))
        # 0b10xxxxxx octets continue a character: a word never starts with one.
        while end < len(octets) and octets[end] & 0xC0 == 0x80:
            end -= 1
        words.append(_word(octets[start:end]))
        start = end
    return words


def _word(octets: bytes) -> str:
    return "=?utf-8?b?" + binascii.b2a_base64(octets, newline=False).decode("ascii") + "?="


def _part(text: str) -> tuple[str, bytes]:
    data = text.encode("utf-8")
    if data.isascii() and all(len(line) <= MAX_LINE for line in data.split(b"\n")):
        return "7bit", data
    return "quoted-printable", binascii.b2a_qp(data, istext=True)


class OutgoingMail:
    """A message ready to send: read its headers like an ``EmailMessage``, or take its bytes."""

    def __init__(self, headers: Iterable[tuple[str, str]], text: str, html: str) -> None:
        self.headers = [(name, value) for name, value in headers]
        self.text, self.html = text, html

    def __getitem__(self, name: str) -> str | None:
        wanted = name.lower()
        return next((v for n, v in self.headers if n.lower() == wanted), None)

    def as_bytes(self) -> bytes:
        if any(n.lower() in ADDRESS_HEADERS and not v.isascii() for n, v in self.headers):
            return self.as_email_message().as_bytes()
        parts = [_part(self.text), _part(self.html)]
        boundary = "=_hfa_" + secrets.token_hex(12)
        while any(boundary.encode() in body for _cte, body in parts):
            boundary = "=_hfa_" + secrets.token_hex(12)
        head = [header_line(n, v) for n, v in self.headers]
        head.append("MIME-Version: 1.0")
        head.append(f'Content-Type: multipart/alternative;\n boundary="{boundary}"')
        out = ["\n".join(head).encode("ascii"), b"\n\n"]
        for subtype, (cte, body) in zip(("plain", "html"), parts, strict=True):
            out.append(
                f'--{boundary}\nContent-Type: text/{subtype}; charset="utf-8"\n'
                f"Content-Transfer-Encoding: {cte}\n\n".encode("ascii")
            )
            # The line break before a boundary belongs to the boundary (RFC 2046 5.1.1).
            out.append(body + b"\n")
        out.append(f"--{boundary}--\n".encode("ascii"))
        return b"".join(out)

    def as_email_message(self) -> EmailMessage:
        """The same message built by the standard library (slower; for unusual addresses)."""
        msg = EmailMessage()
        for name, value in self.headers:
            msg[name] = value
        msg.set_content(self.text)
        msg.add_alternative(self.html, subtype="html")
        return msg
