"""Read a delivery status notification: which of our messages it is about, and what
happened to each recipient (RFC 3464).

Only ``Action: failed`` is a failure. ``delayed`` is a warning (the reporting MTA
is still trying); ``delivered``, ``relayed`` and ``expanded`` report success.
A report without a machine-readable status part (an MTA that pastes a text
explanation only) says nothing per recipient: its caller treats it as a failure,
as the subject and headers that made it a bounce say.
"""

from __future__ import annotations

import email
import email.message
import email.policy
import re
from dataclasses import dataclass, field
from email.parser import HeaderParser

from gateway.errors import ReplyError, only_reply_errors

# Bounces that quote the original do it in a message/rfc822 or
# text/rfc822-headers part; many MTAs also just paste the headers as text.
_MESSAGE_ID_LINE = re.compile(
    r"^[ \t>]{0,8}(?:x-)?(?:original-)?message-id[ \t]{0,8}:[ \t]{0,8}(<[^<>\s]{1,500}>)",
    re.IGNORECASE | re.MULTILINE,
)
_MAX_RAW_BYTES = 20_000_000
_MAX_PARTS = 200
_MAX_RECIPIENTS = 100
ACTIONS = ("failed", "delayed", "delivered", "relayed", "expanded")


@dataclass(frozen=True)
class RecipientStatus:
    """One per-recipient block of a report: whom it is about, and what happened."""

    recipient: str
    action: str
    status: str = ""


@dataclass(frozen=True)
class DeliveryReport:
    message_ids: list[str] = field(default_factory=list)
    recipients: list[RecipientStatus] = field(default_factory=list)

    def action_for(self, address: str) -> str:
        """What the report says happened to ``address``: its own block's Action; else
        ``failed`` when any block failed or none can be read (a bounce without a status
        part is a failure), else the first block's Action."""
        wanted = address.strip().lower()
        for block in self.recipients:
            if block.recipient == wanted:
                return block.action
        actions = [block.action for block in self.recipients]
        if not actions or "failed" in actions:
            return "failed"
        return actions[0]


def find_bounced_message_ids(raw: bytes) -> list[str]:
    """Message-IDs (``<...>`` form, in order, deduplicated) of the bounced original.

    The DSN's own Message-ID is never returned. An input that is not a message
    at all yields an empty list; only ``ReplyError`` escapes.
    """
    return read_delivery_report(raw).message_ids


def read_delivery_report(raw: bytes) -> DeliveryReport:
    """The Message-IDs a report cites and its per-recipient Actions, in one parse.

    Only ``ReplyError`` escapes.
    """
    with only_reply_errors("cannot read bounce"):
        return _read(raw)


def report_of_message(message: email.message.Message) -> DeliveryReport:
    """:func:`read_delivery_report` of a message parsed already (compat32, as the inbound
    reader parses it, within its limits). Only ``ReplyError`` escapes."""
    try:
        return _report(message)
    except Exception as exc:  # the contract: nothing but ReplyError escapes
        raise ReplyError(f"cannot read bounce: {type(exc).__name__}") from exc


def _read(raw: bytes) -> DeliveryReport:
    if not isinstance(raw, bytes | bytearray):
        raise ReplyError("a bounce must be given as bytes")
    if len(raw) > _MAX_RAW_BYTES:
        raise ReplyError("bounce too large")
    # compat32 parsing never raises on malformed headers, unlike policy.default
    # which parses header values lazily and can fail on access.
    return _report(email.message_from_bytes(bytes(raw), policy=email.policy.compat32))


def _report(message: email.message.Message) -> DeliveryReport:
    own_id = _bracketed(str(message.get("Message-ID", "")))
    found: list[str] = []
    recipients: list[RecipientStatus] = []
    for count, part in enumerate(message.walk()):
        if count >= _MAX_PARTS:
            break
        if part.get_content_type() == "message/delivery-status":
            recipients.extend(_recipient_blocks(part))
        found.extend(_ids_in_part(part))
    result: list[str] = []
    for message_id in found:
        if message_id != own_id and message_id not in result:
            result.append(message_id)
    return DeliveryReport(result, recipients[:_MAX_RECIPIENTS])


def _recipient_blocks(part: email.message.Message) -> list[RecipientStatus]:
    """The per-recipient blocks of a message/delivery-status part (the first block is
    about the message as a whole, and has no Action)."""
    payload = part.get_payload()
    blocks = payload if isinstance(payload, list) else []
    if not blocks and isinstance(payload, str):
        # Some parsers leave the part as text: its blocks are separated by blank lines.
        blocks = [
            HeaderParser(policy=email.policy.compat32).parsestr(chunk.strip() + "\n")
            for chunk in re.split(r"\r?\n[ \t]*\r?\n", payload)
            if chunk.strip()
        ]
    found: list[RecipientStatus] = []
    for block in blocks[: _MAX_RECIPIENTS + 1]:
        if not isinstance(block, email.message.Message):
            continue
        action = str(block.get("Action", "")).strip().lower()
        # "failed (bad address)": a comment may follow the keyword.
        action = action.split("(", 1)[0].split(";", 1)[0].strip()
        if not action:
            continue
        if action not in ACTIONS:
            # An Action we do not know is read as the worst case.
            action = "failed"
        recipient = str(block.get("Final-Recipient") or block.get("Original-Recipient") or "")
        address = recipient.split(";", 1)[-1].strip().strip("<>").lower()
        status = str(block.get("Status", "")).strip()[:32]
        found.append(RecipientStatus(address[:320], action, status))
    return found


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
