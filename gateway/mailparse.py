"""Read a stored inbound message: strict headers, convenient bodies and attachments.

Authorisation decisions (who sent it) need the standard library's strict
parser, so its ``EmailMessage`` is kept; mail-parser supplies the text and
HTML bodies and the attachments, where its leniency with broken MIME helps.
Anything that cannot be read raises :class:`Unparseable` with a reason safe
to show ops.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from typing import Any

import mailparser


class Unparseable(Exception):
    """The message cannot be read; carries a reason safe to show ops."""


@dataclass
class ParsedMail:
    message: EmailMessage
    headers: dict[str, str]
    subject: str
    text_plain: str | None
    text_html: str | None
    attachments: list[dict[str, Any]] = field(default_factory=list)


def parse(raw: bytes) -> ParsedMail:
    if not raw.strip():
        raise Unparseable("empty message")
    try:
        message = message_from_bytes(raw, policy=default_policy)
        if not isinstance(message, EmailMessage):
            raise Unparseable("not an email message")
        headers: dict[str, str] = {}
        for name, value in message.items():
            headers.setdefault(name.lower(), str(value))
    except Unparseable:
        raise
    except Exception as exc:
        raise Unparseable(f"headers could not be read ({type(exc).__name__})") from exc
    if not headers:
        raise Unparseable("no headers")
    try:
        mail = mailparser.parse_from_bytes(raw)
        text_plain = "\n".join(mail.text_plain) if mail.text_plain else None
        text_html = "\n".join(mail.text_html) if mail.text_html else None
        attachments = list(mail.attachments)
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
    )


def attachment_bytes(att: dict[str, Any]) -> bytes:
    payload = att.get("payload", "")
    if att.get("binary"):
        return base64.b64decode(payload)
    return str(payload).encode("utf-8", "replace")
