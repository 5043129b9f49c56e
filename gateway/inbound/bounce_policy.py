"""What the bounce address (HFA_MAIL_FROM) takes: delivery reports and auto-replies
about our own mail, small, and not too many from one client.

Mail to the bounce address needs no reply token, so it is never an answer (the
worker records no human turn from it). Here, at the end of DATA, anything else
is refused, so the address cannot be used to fill the database: a message that
does not look automatic (``550``, telling a person where to reply), one that
cites no Message-ID of ours (``550``), one over BOUNCE_MAX_BYTES (``552``), or a
client past BOUNCE_PER_CLIENT in BOUNCE_WINDOW seconds (``450``, try later).
"""

from __future__ import annotations

import contextlib
import re
from email.parser import BytesHeaderParser
from email.policy import compat32

from gateway.replies import ReplyError, detect_automatic, find_bounced_message_ids
from gateway.services import Services
from gateway.throttle import WindowCounter

BOUNCE_MAX_BYTES = 1024 * 1024
BOUNCE_PER_CLIENT = 10
BOUNCE_WINDOW = 600.0
_HEADER_BYTES = 65536
_MESSAGE_ID = re.compile(r"<[^<>@\s]+@([^<>\s]+)>")


class BouncePolicy:
    def __init__(self, services: Services) -> None:
        self.services = services
        self._per_client = WindowCounter(BOUNCE_PER_CLIENT, BOUNCE_WINDOW)

    def refusal(self, raw: bytes, mail_from: str, peer: str) -> str | None:
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
        if not self._cites_our_mail(raw, headers):
            return "550 5.7.1 This report is not about a message we sent"
        if not self._per_client.allow(peer):
            return "450 4.7.1 Too many reports from your address; try again later"
        return None

    def _cites_our_mail(self, raw: bytes, headers: dict[str, str]) -> bool:
        domain = self.services.config.reply_domain.lower()
        cited = " ".join(headers.get(name, "") for name in ("in-reply-to", "references"))
        with contextlib.suppress(ReplyError):
            cited += " " + " ".join(find_bounced_message_ids(raw))
        return any(host.lower() == domain for host in _MESSAGE_ID.findall(cited))


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
