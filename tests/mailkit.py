"""Build lawyers' replies the way mail clients write them, and send them over SMTP."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime

import aiosmtplib

from tests.conftest import LAWYER


def quoted(original: EmailMessage) -> str:
    body = original.get_body(preferencelist=("plain",))
    text = body.get_content() if body is not None else ""
    return "\n".join("> " + line if line else ">" for line in text.splitlines())


def reply_to(
    original: EmailMessage,
    new_text: str,
    *,
    sender: str = LAWYER,
    display_name: str = "Dana Counsel",
    html_only: bool = False,
    signature: str | None = None,
    message_id: str | None = None,
    to: str | None = None,
    subject: str | None = None,
    extra_headers: dict[str, str] | None = None,
) -> EmailMessage:
    """A top-posted reply with the quoted original, as Gmail/Apple Mail/Thunderbird send it."""
    msg = EmailMessage()
    msg["From"] = f"{display_name} <{sender}>" if display_name else sender
    msg["To"] = to or str(original["Reply-To"])
    msg["Subject"] = subject if subject is not None else "Re: " + str(original["Subject"])
    msg["Date"] = format_datetime(datetime.now(UTC))
    msg["Message-ID"] = message_id or f"<{uuid.uuid4().hex}@lawfirm.example>"
    msg["In-Reply-To"] = str(original["Message-ID"])
    msg["References"] = str(original["Message-ID"])
    for name, value in (extra_headers or {}).items():
        msg[name] = value
    sig = f"\n\n-- \n{signature}" if signature else ""
    header = f"On Mon, 30 Nov 2026 at 09:12, HFA Gateway <{original['From']}> wrote:"
    if html_only:
        msg.set_content(
            f'<html><body><div dir="ltr">{new_text.replace(chr(10), "<br>")}'
            f"{'<br>-- <br>' + signature if signature else ''}</div>"
            f'<div class="gmail_quote"><div class="gmail_attr">{header}</div>'
            f'<blockquote class="gmail_quote">{quoted(original)}</blockquote></div>'
            "</body></html>",
            subtype="html",
        )
    else:
        msg.set_content(f"{new_text}{sig}\n\n{header}\n\n{quoted(original)}\n")
    return msg


async def send(message: EmailMessage, port: int, *, sender: str | None = None) -> None:
    await aiosmtplib.send(
        message,
        hostname="127.0.0.1",
        port=port,
        sender=sender if sender is not None else None,
        timeout=10,
    )
