"""Is this reply from the lawyer the reply token was issued to?

Read with the standard library's strict parser (``email.policy.default``):
exactly one From header naming exactly one mailbox, compared by address,
never by display name. Every From a receiver must accept is accepted, RFC
5322's obsolete syntax included ("Dr. Jane Smith <counsel@firm.test>", a
source route); refused is only what makes the address uncertain:

- no From, or two From headers;
- two mailboxes, a group, or an addr-spec that does not parse;
- any other address in the header, in the display name or a comment
  (``From: alice@x <bob@y>`` must never count as alice).

Outlook's unquoted "Smith, Jane <counsel@firm.test>" names one mailbox: the
comma is in the display name, and no other address is there.

A lawyer may have other addresses (``HFA_LAWYERS``:
``counsel@firm.test|jane@home.test``): a reply from one of them is the
lawyer's.

``Authentication-Results`` headers are believed only when their authserv-id
equals the configured one; any other server's verdict is ignored, because
anyone can write that header.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from email.errors import ObsoleteHeaderDefect
from email.message import Message
from email.policy import default as default_policy
from typing import Any

_METHOD_RESULT = re.compile(r"\b(dmarc|dkim)\s*=\s*([a-z]+)(?P<props>[^;]*)", re.IGNORECASE)
_HEADER_D = re.compile(r"header\.d\s*=\s*([^\s;]+)", re.IGNORECASE)
# Something that reads as an address, wherever it stands in the header.
_ADDRESS_LIKE = re.compile(r"[^\s<>\"'(),;:@\[\]]+@[^\s<>\"'(),;:@\[\]]+")
# "Name, with comma <addr>" and other display names the strict parser splits.
_ONE_ANGLE_ADDRESS = re.compile(
    r"^\s*(?P<name>[^<>]*?)\s*<(?P<addr>[^<>\s,;]+)>\s*(?:\([^()]*\))?\s*$"
)


@dataclass(frozen=True)
class SenderCheck:
    ok: bool
    address: str
    reason: str = ""


def _raw_from_headers(message: Message) -> list[str]:
    """Each From header as it was received (unfolded), whatever policy parsed the message."""
    return ["".join(str(v).splitlines()) for k, v in message.raw_items() if k.lower() == "from"]


def _single_mailbox(header: Any, raw: str) -> tuple[str | None, str]:
    addresses: tuple[Any, ...] = tuple(getattr(header, "addresses", ()))
    groups = [g for g in getattr(header, "groups", ()) if g.display_name is not None]
    defects = [d for d in getattr(header, "defects", ()) if not isinstance(d, ObsoleteHeaderDefect)]
    if groups:
        return None, "From names a group, not a mailbox"
    if len(addresses) == 1 and not defects:
        return str(addresses[0].addr_spec), ""
    fallback = _ONE_ANGLE_ADDRESS.match(raw)
    if fallback is not None:
        # Any other address in the name is refused by the caller's scan.
        inner = default_policy.header_factory("From", f"<{fallback.group('addr')}>")
        inner_addresses = tuple(getattr(inner, "addresses", ()))
        if len(inner_addresses) == 1 and not inner.defects:
            return str(inner_addresses[0].addr_spec), ""
    if len(addresses) != 1:
        return None, f"expected exactly one address in From, found {len(addresses)}"
    return None, "malformed From header: the address cannot be read with certainty"


def from_address(message: Message) -> tuple[str | None, str]:
    """The single From address, or (None, why not)."""
    headers = _raw_from_headers(message)
    if len(headers) != 1:
        return None, f"expected exactly one From header, found {len(headers)}"
    raw = headers[0]
    try:
        header = default_policy.header_factory("From", raw)
    except Exception:
        return None, "malformed From header"
    address, why = _single_mailbox(header, raw)
    if address is None:
        return None, why
    address = address.strip().lower()
    local, _, domain = address.rpartition("@")
    if not local or not domain:
        return None, "From has no domain"
    for text in (raw, str(header)):
        for other in _ADDRESS_LIKE.findall(text.replace("mailto:", " ")):
            if other.strip(".").lower() != address:
                return None, f"From names two addresses ({address} and {other.lower()[:100]})"
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


def verify_sender(
    message: Message,
    expected: str,
    trusted_authserv_id: str,
    aliases: Collection[str] = (),
) -> SenderCheck:
    """From is ``expected`` (or one of the lawyer's ``aliases``) and nothing trusted says no."""
    address, why = from_address(message)
    if address is None:
        return SenderCheck(False, "", why)
    accepted = {expected.strip().lower(), *(a.strip().lower() for a in aliases)}
    if address not in accepted:
        return SenderCheck(False, address, f"From {address} is not the recipient of this token")
    failure = authentication_failures(message, trusted_authserv_id, address.rpartition("@")[2])
    if failure:
        return SenderCheck(False, address, failure)
    return SenderCheck(True, address)
