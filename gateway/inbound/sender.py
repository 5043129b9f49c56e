"""Is this reply from the lawyer the reply token was issued to?

Read with the standard library's strict parser (``email.policy.default``):
exactly one From header holding exactly one well-formed mailbox, compared by
address, never by display name. A From header with any parse defect is
refused, since lenient readings are how display-name spoofs get through
(``From: alice@x <bob@y>`` must never count as alice).

``Authentication-Results`` headers are believed only when their authserv-id
equals the configured one; any other server's verdict is ignored, because
anyone can write that header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import Message
from email.policy import default as default_policy
from typing import Any

_METHOD_RESULT = re.compile(r"\b(dmarc|dkim)\s*=\s*([a-z]+)(?P<props>[^;]*)", re.IGNORECASE)
_HEADER_D = re.compile(r"header\.d\s*=\s*([^\s;]+)", re.IGNORECASE)


@dataclass(frozen=True)
class SenderCheck:
    ok: bool
    address: str
    reason: str = ""


def _strict(name: str, value: Any) -> Any:
    """The header as ``email.policy.default`` reads it, whatever policy parsed the message."""
    if hasattr(value, "defects"):
        return value
    # A message parsed with compat32 (cheaper) hands back the raw folded text.
    unfolded = "".join(str(value).splitlines())
    return default_policy.header_factory(name, unfolded)


def from_address(message: Message) -> tuple[str | None, str]:
    """The single From address, or (None, why not)."""
    headers = message.get_all("From") or []
    if len(headers) != 1:
        return None, f"expected exactly one From header, found {len(headers)}"
    try:
        header = _strict("From", headers[0])
    except Exception:
        return None, "malformed From header"
    defects = getattr(header, "defects", ())
    addresses: tuple[Any, ...] = tuple(getattr(header, "addresses", ()))
    if defects:
        return None, "malformed From header"
    if len(addresses) != 1:
        return None, f"expected exactly one address in From, found {len(addresses)}"
    address = str(addresses[0].addr_spec).strip().lower()
    if "@" not in address:
        return None, "From has no domain"
    return address, ""


def authentication_failures(message: Message, trusted_authserv_id: str, domain: str) -> str:
    """What the trusted server says failed (DMARC, or DKIM aligned with ``domain``)."""
    if not trusted_authserv_id:
        return ""
    for value in message.get_all("Authentication-Results") or []:
        text = str(value)
        authserv_id = text.split(";", 1)[0].strip().split()[0] if text.strip() else ""
        if authserv_id != trusted_authserv_id:
            continue
        for match in _METHOD_RESULT.finditer(text):
            method, result = match.group(1).lower(), match.group(2).lower()
            if result not in ("fail", "permerror"):
                continue
            if method == "dmarc":
                return "DMARC failed at the trusted server"
            signer = _HEADER_D.search(match.group("props"))
            signing_domain = signer.group(1).lower() if signer else ""
            if signing_domain and (
                signing_domain == domain or domain.endswith("." + signing_domain)
            ):
                return "aligned DKIM signature failed at the trusted server"
    return ""


def verify_sender(message: Message, expected: str, trusted_authserv_id: str) -> SenderCheck:
    address, why = from_address(message)
    if address is None:
        return SenderCheck(False, "", why)
    if address != expected.strip().lower():
        return SenderCheck(False, address, f"From {address} is not the recipient of this token")
    failure = authentication_failures(message, trusted_authserv_id, address.rpartition("@")[2])
    if failure:
        return SenderCheck(False, address, failure)
    return SenderCheck(True, address)
