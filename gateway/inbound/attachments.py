"""A reply's attachments: which are kept on their own, written where, listed on the turn.

Within the limits each attachment is stored apart from the raw message (a large one
in pieces, before the transaction that records the turn, which then only links it);
past them it stays only in the raw message and is listed as such.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from gateway.inbound.mailparse import MailAttachment, ParsedMail
from gateway.services import Services
from gateway.store import blobs
from gateway.store.models import Attachment, InboundMessage

MAX_ATTACHMENTS = 20
MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024


def recorded_detail(kind: str, attachments: list[dict[str, Any]]) -> str:
    skipped = sum(1 for a in attachments if a.get("stored") is False)
    if not skipped:
        return kind
    return (
        f"{kind}; {skipped} attachment(s) over the limits ({MAX_ATTACHMENTS} files, "
        f"{MAX_ATTACHMENT_BYTES // 1048576} MB each) kept only in the raw message"
    )


def kept_attachments(mail: ParsedMail) -> list[MailAttachment]:
    """The attachments stored on their own (within the limits); the rest stay in the raw message."""
    return [
        att
        for att in mail.attachments[:MAX_ATTACHMENTS]
        if len(att.content) <= MAX_ATTACHMENT_BYTES
    ]


def write_large_attachments(services: Services, mail: ParsedMail) -> None:
    """The bytes of the large attachments, each chunk in a transaction of its own, before
    the transaction that records the turn (which then only links them)."""
    for att in kept_attachments(mail):
        if blobs.kept_apart(att.content) and att.sha256 not in mail.written_apart:
            blobs.write_apart(
                services.db.transaction, att.content, att.sha256, services.clock.now()
            )
            mail.written_apart.add(att.sha256)


def store_attachments(
    session: Session, row: InboundMessage, mail: ParsedMail
) -> list[dict[str, Any]]:
    """Each attachment stored apart (within the limits) and listed on the turn."""
    listed: list[dict[str, Any]] = []
    for index, att in enumerate(mail.attachments):
        content = att.content
        meta = {
            "name": (att.filename or f"attachment-{index + 1}")[:255],
            "type": (att.content_type or "application/octet-stream")[:255],
            "size": len(content),
            "sha256": att.sha256,
        }
        if index >= MAX_ATTACHMENTS or len(content) > MAX_ATTACHMENT_BYTES:
            # Still in the raw message; listed without a separate stored copy.
            meta["stored"] = False
            listed.append(meta)
            continue
        apart = blobs.kept_apart(content)
        if apart and att.sha256 not in mail.written_apart:
            # Read again by hand (``hfa inbound accept``): written here, in this transaction.
            blobs.write_in(session.connection(), content, att.sha256, row.received_at)
        session.add(
            Attachment(
                inbound_id=row.id,
                filename=meta["name"],
                content_type=meta["type"],
                size=meta["size"],
                sha256=meta["sha256"],
                content=b"" if apart else content,
            )
        )
        listed.append(meta)
    return listed
