"""Find which of our messages a delivery status notification is about."""

from __future__ import annotations

import email
import email.message
import email.policy
import re
from email.parser import HeaderParser

from gateway.replies.errors import ReplyError

# Bounces that quote the original do it in a message/rfc822 or
# text/rfc822-headers part; many MTAs also just paste the headers as text.
_MESSAGE_ID_LINE = re.compile(
    r"^[ \t>]{0,8}(?:x-)?(?:original-)?message-id[ \t]{0,8}:[ \t]{0,8}(<[^<>\s]{1,500}>)",
    re.IGNORECASE | re.MULTILINE,
)
_MAX_RAW_BYTES = 20_000_000
_MAX_PARTS = 200


def find_bounced_message_ids(raw: bytes) -> list[str]:
    """Message-IDs (``<...>`` form, in order, deduplicated) of the bounced original.

    The DSN's own Message-ID is never returned. An input that is not a message
    at all yields an empty list; only ``ReplyError`` escapes.
    """
    try:
        return _find(raw)
    except ReplyError:
        raise
    except Exception as exc:  # the contract: nothing but ReplyError escapes
        raise ReplyError(f"cannot read bounce: {type(exc).__name__}") from exc


def _find(raw: bytes) -> list[str]:
    if not isinstance(raw, bytes | bytearray):
        raise ReplyError("a bounce must be given as bytes")
    if len(raw) > _MAX_RAW_BYTES:
        raise ReplyError("bounce too large")
    # compat32 parsing never raises on malformed headers, unlike policy.default
    # which parses header values lazily and can fail on access.
    message = email.message_from_bytes(bytes(raw), policy=email.policy.compat32)
    own_id = _bracketed(str(message.get("Message-ID", "")))
    found: list[str] = []
    for count, part in enumerate(message.walk()):
        if count >= _MAX_PARTS:
            break
        found.extend(_ids_in_part(part))
    result: list[str] = []
    for message_id in found:
        if message_id != own_id and message_id not in result:
            result.append(message_id)
    return result


def _ids_in_part(part: email.message.Message) -> list[str]:
    ctype = part.get_content_type()
    if ctype == "message/rfc822":
        payload = part.get_payload()
        inner = payload[0] if isinstance(payload, list) and payload else None
        if isinstance(inner, email.message.Message):
            value = _bracketed(str(inner.get("Message-ID", "")))
            return [value] if value else []
        return []
    if ctype == "text/rfc822-headers":
        text = _text_of(part)
        headers = HeaderParser(policy=email.policy.compat32).parsestr(text, headersonly=True)
        value = _bracketed(str(headers.get("Message-ID", "")))
        found = [value] if value else []
        return found + _MESSAGE_ID_LINE.findall(text)
    if part.get_content_maintype() == "text":
        return list(_MESSAGE_ID_LINE.findall(_text_of(part)))
    return []


def _text_of(part: email.message.Message) -> str:
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        charset = part.get_content_charset() or "utf-8"
        try:
            return payload.decode(charset, errors="replace")
        except LookupError:  # an unknown charset name
            return payload.decode("utf-8", errors="replace")
    raw = part.get_payload()
    return raw if isinstance(raw, str) else ""


def _bracketed(value: str) -> str:
    match = re.search(r"<[^<>\s]{1,500}>", value)
    return match.group() if match else ""
