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

``Authentication-Results`` headers are believed only when the trusted server
added them (RFC 8601 section 5): their authserv-id equals the configured one
(compared without case, as host names are) and they stand in the block that
server wrote on top of the message, that is above the first ``Received:``
header (the one it wrote on receipt) or in the run of headers its filters
insert right under it (across further Received headers that name that server
as the receiving host, as a content filter's second pass does), and above every
header of the message itself. Anything
else is what the sender wrote: another server's verdict is ignored, and a
header claiming our own id anywhere else makes the message suspect (held, and
the reason says so), because only a forger writes one there. With
``require_authenticated`` (HFA_REQUIRE_AUTHENTICATED_SENDER) the trusted
server must also say that DMARC, or a DKIM signature aligned with the From
domain, passed.

How well the sender is proven beyond this (the gateway's own DKIM and DMARC,
trusted ARC sealers, the policy per lawyer domain) is ``assurance``'s.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from email.errors import ObsoleteHeaderDefect
from email.message import Message
from email.policy import default as default_policy
from typing import Any

from gateway.inbound.mailparse import strict_header

_METHOD_RESULT = re.compile(r"\b(dmarc|dkim)\s*=\s*([a-z]+)(?P<props>[^;]*)", re.IGNORECASE)
_HEADER_FROM = re.compile(r"header\.from\s*=\s*([^\s;]+)", re.IGNORECASE)
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
    # What vouched for the sender, shown on the recorded turn: the ladder's entry
    # (``gateway.inbound.assurance``); a plain text on turns recorded before it.
    authenticated_by: Any = ""
    # What the ladder proved: dkim (aligned DKIM), dmarc (DMARC or aligned SPF), token,
    # or vouched (an operator accepted it, or the lawyer confirmed it).
    strength: str = ""
    # The From domain's DMARC record (``gateway.inbound.dmarc.DmarcRecord``), when looked up.
    dmarc: Any = None


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
        header = strict_header("From", raw)
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


def _aligned(signing_domain: str, domain: str) -> bool:
    return bool(signing_domain) and (
        signing_domain == domain or domain.endswith("." + signing_domain)
    )


# Headers that belong to the message as its author wrote it: the trusted server's block
# is above all of them.
_MESSAGE_HEADERS = frozenset(
    {
        "from",
        "sender",
        "reply-to",
        "to",
        "cc",
        "bcc",
        "subject",
        "date",
        "message-id",
        "in-reply-to",
        "references",
        "mime-version",
        "comments",
        "keywords",
    }
)
_RECEIVED_BY = re.compile(r"\bby\s+([^\s;()]+)", re.IGNORECASE)
# Shown in the held message's reason and recognised by ``held`` (no notice to a forger).
FORGED_RESULTS = "an Authentication-Results header claiming the trusted server"


def _authserv_id(value: object) -> str:
    text = " ".join(str(value).split())
    return text.split(";", 1)[0].strip().split()[0].lower() if text.strip() else ""


def results_claiming(message: Message, trusted_authserv_id: str) -> tuple[list[str], int]:
    """The Authentication-Results headers with the trusted authserv-id that its server
    wrote (unfolded), and how many more claim that id elsewhere in the message."""
    if not trusted_authserv_id:
        return [], 0
    wanted = trusted_authserv_id.strip().lower()
    trusted: list[str] = []
    elsewhere = 0
    received = 0
    in_block = True
    for name, value in message.raw_items():
        lowered = name.lower()
        if lowered == "received":
            # The first Received is the trusted server's own; its filters (OpenDMARC,
            # OpenDKIM) insert their results right under it. A later one is the server's
            # too only when it names it as the receiving host (a content filter's second
            # pass); any other came with the message.
            received += 1
            by = _RECEIVED_BY.search(" ".join(str(value).split()))
            own = by is not None and by.group(1).lower().rstrip(".") == wanted
            in_block = in_block and (received < 2 or own)
        elif lowered in _MESSAGE_HEADERS or lowered.startswith("content-"):
            in_block = False
        elif lowered == "authentication-results" and _authserv_id(value) == wanted:
            if in_block:
                trusted.append(" ".join(str(value).split()))
            else:
                elsewhere += 1
    return trusted, elsewhere


def _trusted_results(message: Message, trusted_authserv_id: str) -> list[str]:
    return results_claiming(message, trusted_authserv_id)[0]


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
    aliases: Collection[str] = (),
    *,
    require_authenticated: bool = False,
    sender: tuple[str | None, str] | None = None,
) -> SenderCheck:
    """From is ``expected`` (or one of the lawyer's ``aliases``) and nothing trusted says no.

    ``sender``: what :func:`from_address` gave for ``message``, when read already.
    """
    address, why = sender if sender is not None else from_address(message)
    if address is None:
        return SenderCheck(False, "", why)
    accepted = {expected.strip().lower(), *(a.strip().lower() for a in aliases)}
    if address not in accepted:
        return SenderCheck(False, address, f"From {address} is not the recipient of this token")
    domain = address.rpartition("@")[2]
    if results_claiming(message, trusted_authserv_id)[1]:
        return SenderCheck(
            False,
            address,
            f"{FORGED_RESULTS} ({trusted_authserv_id}) stands where that server does not "
            "write: among the sender's own headers, so it may be forged",
        )
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


_SPF_RESULT = re.compile(r"\bspf\s*=\s*([a-z]+)(?P<props>[^;]*)", re.IGNORECASE)
_MAILFROM = re.compile(r"smtp\.mailfrom\s*=\s*([^\s;]+)", re.IGNORECASE)


def envelope_sender_fails(message: Message, trusted_authserv_id: str, envelope: str) -> bool:
    """Does the trusted server say the envelope sender ``envelope`` is forged: SPF failed
    for its domain, a DKIM signature of its domain failed, or DMARC failed? False where
    the server says nothing (unknown is not a failure)."""
    domain = envelope.rpartition("@")[2].strip().lower()
    if not domain:
        return False
    for text in _trusted_results(message, trusted_authserv_id):
        for match in _SPF_RESULT.finditer(text):
            mailfrom = _MAILFROM.search(match.group("props"))
            spf_domain = mailfrom.group(1).rpartition("@")[2].lower() if mailfrom else domain
            if match.group(1).lower() in ("fail", "softfail") and spf_domain == domain:
                return True
        for match in _METHOD_RESULT.finditer(text):
            method, result = match.group(1).lower(), match.group(2).lower()
            if result not in ("fail", "permerror"):
                continue
            if method == "dmarc":
                return True
            signer = _HEADER_D.search(match.group("props"))
            if _aligned(signer.group(1).lower() if signer else "", domain):
                return True
    return False
