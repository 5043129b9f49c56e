"""Read a stored inbound message: strict headers, convenient bodies and attachments.

Authorisation decisions (who sent it) need the standard library's strict
parser, so its ``EmailMessage`` is kept; mail-parser supplies the text and
HTML bodies and the attachments, where its leniency with broken MIME helps.
Anything that cannot be read raises :class:`Unparseable` with a reason safe
to show ops. What the parsers read is bounded first (``limits``): a message of
millions of parts or thousands of nesting levels costs no more than one at the
limits, and ``truncated`` says what was left unread (it stays in the raw bytes).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from email import message_from_bytes
from email.headerregistry import UnstructuredHeader
from email.message import Message
from email.policy import compat32
from email.policy import default as default_policy
from typing import Any

import mailparser

from gateway.errors import Unparseable
from gateway.inbound.limits import MAX_DEPTH, MAX_PARTS, MAX_TEXT_CHARS, bounded, cut_text

__all__ = [
    "MAX_DEPTH",
    "MAX_PARTS",
    "MAX_TEXT_CHARS",
    "ParsedMail",
    "Unparseable",
    "parse",
    "strict_header",
]


@dataclass(frozen=True)
class MailAttachment:
    """An attachment, decoded: read when the message is parsed, outside any write
    transaction (decoding a 25 MB scan takes a tenth of a second)."""

    filename: str | None
    content_type: str | None
    content: bytes
    sha256: str


@dataclass
class ParsedMail:
    message: Message
    headers: Mapping[str, str]
    subject: str
    text_plain: str | None
    text_html: str | None
    attachments: list[MailAttachment] = field(default_factory=list)
    # What was left unread because of the limits; empty for an ordinary message.
    truncated: list[str] = field(default_factory=list)
    # The reply split off the text (or why it could not be), when already worked out.
    reply: object | None = None
    # SHA-256 of the attachments whose bytes were written apart already (``store.blobs``),
    # before the transaction that records the turn.
    written_apart: set[str] = field(default_factory=set)
    # What the reply's text alone says (``replies.TextReading``), when already worked out.
    decision: object | None = None
    # The one reading of the reply (``replies.Reading``), once read against its request:
    # a held reply's challenge and notice describe it by this same reading.
    reading: object | None = None
    # The single From address (or None, and why not), when already read.
    sender: tuple[str | None, str] | None = None
    # As a delivery report: the Message-IDs it cites and each recipient's Action.
    report: object | None = None
    # The bytes as received (DKIM is verified over them); not sent between processes.
    raw: bytes | None = None
    # What the gateway's own sender checks found (``gateway.inbound.assurance``), when
    # worked out before the write transaction.
    evidence: object | None = None


# Printable ASCII (tabs too) without an encoded word ("=?"): nothing to decode.
_PLAIN = re.compile(r"(?:[\t\x20-\x3c\x3e-\x7e]|=(?!\?))*")


# A header longer than this is parsed each time it is asked for, never kept.
_KEPT_HEADER_CHARS = 2048


@functools.lru_cache(maxsize=16)
def _kept_strict(name: str, unfolded: str) -> Any:
    return default_policy.header_factory(name, unfolded)


def strict_header(name: str, unfolded: str) -> Any:
    """``unfolded`` (one header's value, line breaks removed) as ``email.policy.default``
    reads it. The few latest are kept: the reader of a reply asks for its From twice (the
    sender check, the automatic-reply check), and each strict parse of an address costs
    a quarter of a millisecond. The parsed headers are immutable."""
    if len(unfolded) > _KEPT_HEADER_CHARS:
        return default_policy.header_factory(name, unfolded)
    return _kept_strict(name.lower(), unfolded)


@functools.cache
def _unstructured(name: str) -> bool:
    """Whether the strict policy reads this header as free text (Subject, References...)."""
    registry: Any = default_policy.header_factory
    return issubclass(registry[name], UnstructuredHeader)


class HeaderView(Mapping[str, str]):
    """Lower-cased header names -> the first value, decoded only when asked for.

    Decoding a header with ``email.policy.default`` costs a parse of its own;
    a reply carries dozens of headers and the worker reads a handful.
    """

    def __init__(self, message: Message) -> None:
        self._message = message
        self._names = list(dict.fromkeys(name.lower() for name in message))
        self._decoded: dict[str, str] = {}

    def __getitem__(self, name: str) -> str:
        key = name.lower()
        if key not in self._decoded:
            value = self._message.get(key)
            if value is None:
                raise KeyError(name)
            unfolded = "".join(str(value).splitlines())
            if _PLAIN.fullmatch(unfolded) and _unstructured(key):
                # Printable ASCII with no encoded word decodes to itself.
                self._decoded[key] = unfolded
                return unfolded
            try:
                self._decoded[key] = str(strict_header(key, unfolded))
            except Exception:
                # A header the strict parser cannot decode is read as sent.
                self._decoded[key] = unfolded
        return self._decoded[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def parse(raw: bytes) -> ParsedMail:
    if not raw.strip():
        raise Unparseable("empty message")
    raw, truncated = bounded(raw)
    try:
        # compat32 reads the structure several times faster than the default policy;
        # the few headers that are used are decoded strictly when read (HeaderView,
        # gateway.inbound.sender).
        message = message_from_bytes(raw, policy=compat32)
        headers = HeaderView(message)
    except Unparseable:
        raise
    except Exception as exc:
        raise Unparseable(f"headers could not be read ({type(exc).__name__})") from exc
    if not headers:
        raise Unparseable("no headers")
    try:
        # Handed the message parsed above (compat32, as mail-parser parses it itself),
        # so the bytes are read once, not twice. mail-parser only reads the message.
        mail = mailparser.MailParser(_attached_messages_as_files(message, raw))
        text_plain = cut_text(
            "\n".join(mail.text_plain) if mail.text_plain else None, "text", truncated
        )
        text_html = cut_text(
            "\n".join(mail.text_html) if mail.text_html else None, "HTML text", truncated
        )
        attachments = [_decoded(att) for att in mail.attachments]
    except Exception as exc:
        raise Unparseable(f"body could not be read ({type(exc).__name__})") from exc
    if text_plain is None and text_html is None and not attachments:
        raise Unparseable("no readable body")
    return ParsedMail(
        message=message,
        headers=headers,
        subject=headers.get("subject", ""),
        text_plain=text_plain,
        text_html=text_html,
        attachments=attachments,
        truncated=truncated,
    )


# Containers of a whole email: an attached or forwarded message, never the sender's words.
_CRLF = compat32.clone(linesep="\r\n")
_ATTACHED_MESSAGE = frozenset({"message/rfc822", "message/global"})


def _attached_messages_as_files(message: Message, raw: bytes) -> Message:
    """The message as mail-parser should read it: each attached email one file.

    mail-parser reads the text parts inside an attached email (``message/rfc822``,
    inline or as an attachment, nested at any depth) as text of the message itself,
    so a forwarded "Rejected." under the lawyer's "Approved." became their words.
    Here each outermost attached email is a leaf part of its own, an attachment
    (its bytes kept, named ``forwarded.eml`` unless it has a name), so only the
    sender's own text parts are read as text. ``message`` is returned as it is
    when it has none; otherwise a copy is changed (the original stays whole for the
    sender checks and delivery reports).
    """
    if not any(part.get_content_type() in _ATTACHED_MESSAGE for part in message.walk()):
        return message
    view = message_from_bytes(raw, policy=compat32)
    for part in list(view.walk()):
        if part.get_content_type() not in _ATTACHED_MESSAGE or not part.is_multipart():
            # Not an email container, or one inside an email already made a file.
            continue
        inner = part.get_payload()
        try:
            data = b"".join(m.as_bytes(policy=_CRLF) for m in inner if isinstance(m, Message))
        except Exception:
            data = "".join(str(m) for m in inner).encode("utf-8", "surrogateescape")
        part.set_payload(base64.encodebytes(data).decode("ascii"))
        del part["Content-Transfer-Encoding"]
        part["Content-Transfer-Encoding"] = "base64"
        if not part.get_filename():
            del part["Content-Disposition"]
            part["Content-Disposition"] = 'attachment; filename="forwarded.eml"'
        elif part.get_content_disposition() != "attachment":
            name = part.get_filename()
            del part["Content-Disposition"]
            part.add_header("Content-Disposition", "attachment", filename=name)
    return view


def _decoded(att: dict[str, Any]) -> MailAttachment:
    """mail-parser's attachment (its payload base64 text when binary) as bytes."""
    payload = att.get("payload", "")
    if att.get("binary"):
        content = base64.b64decode(payload)
    else:
        content = str(payload).encode("utf-8", "replace")
    name, kind = att.get("filename"), att.get("mail_content_type")
    return MailAttachment(
        filename=str(name) if name else None,
        content_type=str(kind) if kind else None,
        content=content,
        sha256=hashlib.sha256(content).hexdigest(),
    )
