"""Is this reply from the lawyer the reply token was issued to?

Read with the standard library's strict parser (``email.policy.default``):
exactly one From header holding exactly one well-formed mailbox, compared by
address, never by display name. A From header with any parse defect is
refused, since lenient readings are how display-name spoofs get through
(``From: alice@x <bob@y>`` must never count as alice).

``Authentication-Results`` headers are believed only when their authserv-id
equals the configured one (compared without case, as host names are); any
other server's verdict is ignored, because anyone can write that header. With
``require_authenticated`` (HFA_REQUIRE_AUTHENTICATED_SENDER) the trusted
server must also say that DMARC, or a DKIM signature aligned with the From
domain, passed; each check says what authenticated the sender.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import Message
from email.policy import default as default_policy
from typing import Any

_METHOD_RESULT = re.compile(r"\b(dmarc|dkim)\s*=\s*([a-z]+)(?P<props>[^;]*)", re.IGNORECASE)
_HEADER_FROM = re.compile(r"header\.from\s*=\s*([^\s;]+)", re.IGNORECASE)
_HEADER_D = re.compile(r"header\.d\s*=\s*([^\s;]+)", re.IGNORECASE)


@dataclass(frozen=True)
class SenderCheck:
    ok: bool
    address: str
    reason: str = ""
    # What vouched for the sender, shown on the recorded turn.
    authenticated_by: str = ""


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


def _aligned(signing_domain: str, domain: str) -> bool:
    return bool(signing_domain) and (
        signing_domain == domain or domain.endswith("." + signing_domain)
    )


def _trusted_results(message: Message, trusted_authserv_id: str) -> list[str]:
    """The Authentication-Results headers written by the trusted server (ids compare
    without case, as domain names do)."""
    if not trusted_authserv_id:
        return []
    wanted = trusted_authserv_id.strip().lower()
    found = []
    for value in message.get_all("Authentication-Results") or []:
        text = " ".join(str(value).split())
        authserv_id = text.split(";", 1)[0].strip().split()[0].lower() if text.strip() else ""
        if authserv_id == wanted:
            found.append(text)
    return found


def authentication_failures(message: Message, trusted_authserv_id: str, domain: str) -> str:
    """What the trusted server says failed (DMARC, or DKIM aligned with ``domain``)."""
    for text in _trusted_results(message, trusted_authserv_id):
        for match in _METHOD_RESULT.finditer(text):
            method, result = match.group(1).lower(), match.group(2).lower()
            if result not in ("fail", "permerror"):
                continue
            if method == "dmarc":
                return "DMARC failed at the trusted server"
            signer = _HEADER_D.search(match.group("props"))
            if _aligned(signer.group(1).lower() if signer else "", domain):
                return "aligned DKIM signature failed at the trusted server"
    return ""


def authentication_pass(message: Message, trusted_authserv_id: str, domain: str) -> str:
    """What the trusted server says passed for ``domain``: DMARC, or an aligned DKIM
    signature; "" when nothing did."""
    for text in _trusted_results(message, trusted_authserv_id):
        for match in _METHOD_RESULT.finditer(text):
            method, result = match.group(1).lower(), match.group(2).lower()
            if result != "pass":
                continue
            if method == "dmarc":
                header_from = _HEADER_FROM.search(match.group("props"))
                if header_from and header_from.group(1).lower() != domain:
                    continue
                return f"dmarc=pass at {trusted_authserv_id}"
            signer = _HEADER_D.search(match.group("props"))
            signing_domain = signer.group(1).lower() if signer else ""
            if _aligned(signing_domain, domain):
                return f"dkim=pass ({signing_domain}) at {trusted_authserv_id}"
    return ""


def verify_sender(
    message: Message,
    expected: str,
    trusted_authserv_id: str,
    *,
    require_authenticated: bool = False,
) -> SenderCheck:
    address, why = from_address(message)
    if address is None:
        return SenderCheck(False, "", why)
    if address != expected.strip().lower():
        return SenderCheck(False, address, f"From {address} is not the recipient of this token")
    domain = address.rpartition("@")[2]
    failure = authentication_failures(message, trusted_authserv_id, domain)
    if failure:
        return SenderCheck(False, address, failure)
    passed = authentication_pass(message, trusted_authserv_id, domain)
    if passed:
        return SenderCheck(True, address, authenticated_by=passed)
    if require_authenticated:
        return SenderCheck(
            False,
            address,
            "no DMARC or aligned DKIM pass from the trusted server, and "
            "HFA_REQUIRE_AUTHENTICATED_SENDER is on",
        )
    return SenderCheck(True, address, authenticated_by="From address only")
