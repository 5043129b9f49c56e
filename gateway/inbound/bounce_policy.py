"""What the bounce address (HFA_MAIL_FROM) takes: delivery reports and auto-replies
about our own mail, small, within a daily budget.

Mail to the bounce address needs no reply token, so it is never an answer (the
worker records no human turn from it). Here, at the end of DATA and in the SMTP
session (so nothing is ever bounced to a sender that may be forged), a message
that does not look automatic is refused (``550``, telling a person where to
reply), and one over BOUNCE_MAX_BYTES (``552``, by the protocol). Only the
headers are read here, from the first 64 KB: reading the whole message (which
Message-IDs it cites, each recipient's Action) is the worker's, in its reading
process, off the listeners' event loop.

Storage is bounded twice. The worker keeps in full only a report that cites an
email we actually sent; the rest keeps its headers (``reports``). And each
listener stores at most BOUNCE_DAILY_BYTES of such mail in full per UTC day;
past it, a message is stored as its first BOUNCE_HEAD_BYTES (which hold a
report's human-readable and machine-readable parts), and the cut is audited.
"""

from __future__ import annotations

from datetime import date
from email.parser import BytesHeaderParser
from email.policy import compat32

from gateway.replies import ReplyError, detect_automatic

BOUNCE_MAX_BYTES = 1024 * 1024
BOUNCE_DAILY_BYTES = 64 * 1024 * 1024
BOUNCE_HEAD_BYTES = 64 * 1024
_HEADER_BYTES = 65536


class BouncePolicy:
    def __init__(self, daily_bytes: int | None = None) -> None:
        self.daily_bytes = BOUNCE_DAILY_BYTES if daily_bytes is None else daily_bytes
        self._day: date | None = None
        self._stored_today = 0

    def refusal(self, raw: bytes, mail_from: str) -> str | None:
        """None when the bounce address takes ``raw``, else the SMTP answer refusing it."""
        if len(raw) > BOUNCE_MAX_BYTES:
            return (
                f"552 5.3.4 This address takes delivery reports of at most {BOUNCE_MAX_BYTES} bytes"
            )
        headers = _headers(raw)
        try:
            automatic = detect_automatic(
                headers, headers.get("subject", ""), headers.get("content-type")
            )
        except ReplyError:
            automatic = None
        if automatic is None and mail_from not in ("", "<>"):
            return (
                "550 5.7.1 This address takes only delivery reports; to answer a request, "
                "reply to the address in the email's Reply-To"
            )
        return None

    def within_budget(self, raw: bytes, today: date) -> bytes:
        """``raw`` while today's budget lasts, else its first BOUNCE_HEAD_BYTES."""
        if self._day != today:
            self._day, self._stored_today = today, 0
        if self._stored_today + len(raw) > self.daily_bytes:
            return raw[:BOUNCE_HEAD_BYTES]
        self._stored_today += len(raw)
        return raw


def _headers(raw: bytes) -> dict[str, str]:
    """Lower-cased header names -> first value, from the first 64 KB (cheap, lenient)."""
    try:
        message = BytesHeaderParser(policy=compat32).parsebytes(
            raw[:_HEADER_BYTES], headersonly=True
        )
    except Exception:
        return {}
    found: dict[str, str] = {}
    for name, value in message.items():
        found.setdefault(name.lower(), " ".join(str(value).split()))
    return found
