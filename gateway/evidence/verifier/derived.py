"""Files derived from others: the exporter builds them, the verifier rebuilds and compares."""

from __future__ import annotations

import json
import re
from email import message_from_bytes
from typing import Any

# --- Derived files: the exporter builds them with these same functions ---------------


# A line that is ">"* then "From " gets one more ">" (mboxrd), at every line's start.
_FROM_LINE = re.compile(rb"\n(>*From )")


def mbox_entry(message: dict[str, Any], raw: bytes) -> bytes:
    """One email of the mbox: its ``From `` line, its lines quoted, then an empty line."""
    body = raw.replace(b"\r\n", b"\n")
    head = f"From {message['envelope_from'] or 'MAILER-DAEMON'} {message['asctime']}\n"
    quoted = _FROM_LINE.sub(rb"\n>\1", b"\n" + body)[1:]
    return head.encode() + quoted + (b"\n" if body.endswith(b"\n") else b"\n\n")


def mbox_of(messages: list[dict[str, Any]], raw: dict[str, bytes]) -> bytes:
    """The thread as one RFC 4155 mbox, oldest first, ``From `` lines quoted (mboxrd)."""
    return b"".join(mbox_entry(m, raw.get(m["path"], b"")) for m in messages)


def lawyer_view(raw: bytes) -> tuple[bytes, bytes]:
    """The text and HTML bodies of an email as a mail client shows them: decoded, in UTF-8.

    The first text/plain and text/html parts that are not attachments, as
    ``email.message.EmailMessage.get_body`` picks them for a simple message.
    """
    found: dict[str, bytes] = {}
    for part in message_from_bytes(raw).walk():
        kind = part.get_content_type()
        if kind in ("text/plain", "text/html") and kind not in found:
            if part.get_content_disposition() == "attachment":
                continue
            payload = part.get_payload(decode=True)
            content = payload if isinstance(payload, bytes) else b""
            charset = part.get_content_charset() or "utf-8"
            found[kind] = content.decode(charset, errors="replace").encode()
    return found.get("text/plain", b""), found.get("text/html", b"")


def senders_of(thread: dict[str, Any]) -> list[dict[str, Any]]:
    """Each human turn's sender and how it was verified when the reply arrived."""
    out = []
    for number, turn in enumerate(thread.get("turns", []), start=1):
        if turn.get("author") != "human":
            continue
        verified = turn.get("authenticated_by")
        if isinstance(verified, str):
            verified = {"method": "recorded text", "result": verified}
        out.append(
            {
                "turn": number,
                "at": turn.get("at"),
                "from": turn.get("from"),
                "kind": turn.get("kind"),
                "decision": turn.get("decision"),
                "authenticated_by": verified,
            }
        )
    return out


def json_bytes(value: Any) -> bytes:
    """How the bundle writes its JSON files: indented, sorted, UTF-8, one final newline."""
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
