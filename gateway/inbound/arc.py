"""ARC (RFC 8617) from sealers the operator trusts: a firm's own tenant that forwards.

A forwarder (Microsoft 365, Google Workspace) may change a message so that the
lawyer's DKIM signature no longer verifies; it seals what it saw on arrival in
an ARC set. The chain is verified with dkimpy; it is believed when the newest set is by a domain in HFA_ARC_TRUSTED_SEALERS and the
whole chain validates: its ARC-Authentication-Results say whether DKIM aligned
with the From domain, or DMARC, passed when the mail reached that sealer. A seal
by anyone else is ignored, whatever it says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gateway.inbound.dkim_check import KeyRecords
from gateway.inbound.dmarc import aligned
from gateway.inbound.dns_txt import TxtSource

_ARC_SEAL = re.compile(rb"^arc-seal\s*:", re.IGNORECASE | re.MULTILINE)
# RFC 8617 5.1.1.1 allows 50 sets; a forwarding tenant adds one or two. More are not read
# (each costs two key lookups).
MAX_ARC_SETS = 5
_RESULT = re.compile(r"\b(dmarc|dkim|spf)\s*=\s*([a-z]+)(?P<props>[^;]*)", re.IGNORECASE)
_HEADER_D = re.compile(r"header\.d\s*=\s*([^\s;]+)", re.IGNORECASE)
_HEADER_FROM = re.compile(r"header\.from\s*=\s*([^\s;]+)", re.IGNORECASE)


@dataclass(frozen=True)
class ArcVerdict:
    """What a trusted sealer vouches for; ``result`` "none" when no trusted seal holds."""

    result: str
    sealer: str = ""
    selector: str = ""
    key_record: str = ""
    key_sha256: str = ""
    # What the sealer's ARC-Authentication-Results said passed for the From domain.
    dkim_aligned: bool = False
    dmarc_pass: bool = False
    detail: str = ""


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("ascii", "replace").strip().lower()
    return str(value or "").strip().lower()


def _said(aar: str, from_domain: str) -> tuple[bool, bool]:
    """(aligned DKIM passed, DMARC passed) for ``from_domain`` in an ARC-Authentication-Results."""
    dkim_ok = dmarc_ok = False
    for match in _RESULT.finditer(aar):
        method, result, props = match.group(1).lower(), match.group(2).lower(), match.group("props")
        if result != "pass":
            continue
        if method == "dkim":
            signer = _HEADER_D.search(props)
            if signer is not None:
                dkim_ok |= aligned(_text(signer.group(1)), from_domain, strict=False)
        elif method == "dmarc":
            author = _HEADER_FROM.search(props)
            if author is not None:
                dmarc_ok |= _text(author.group(1)) == from_domain
    return dkim_ok, dmarc_ok


def verify_arc(
    raw: bytes, lookup: TxtSource, trusted: frozenset[str], from_domain: str
) -> ArcVerdict:
    """The newest trusted seal's word on ``from_domain``, or why there is none."""
    seals = len(_ARC_SEAL.findall(raw))
    if not seals:
        return ArcVerdict("none", detail="not sealed")
    if seals > MAX_ARC_SETS:
        return ArcVerdict("fail", detail=f"{seals} ARC sets, more than the {MAX_ARC_SETS} read")
    keys = KeyRecords(lookup)
    # Imported by the first message checked, not at start: dkimpy and dnspython (some
    # 3.5 MB) would otherwise sit idle in both of hfa serve's processes.
    import dkim

    try:
        chain, sets, reason = dkim.arc_verify(raw, dnsfunc=keys)
    except Exception as exc:
        return ArcVerdict("fail", detail=f"ARC chain unreadable ({type(exc).__name__})")
    if chain != dkim.CV_Pass:
        failed = "temperror" if keys.failed else "fail"
        return ArcVerdict(failed, detail=f"ARC chain did not validate: {reason}"[:200])
    # dkimpy lists the sets newest first. Only the newest set's message signature must
    # still verify, so only the newest sealer vouches for the message as it is now: a
    # trusted set under an untrusted one says nothing of what the untrusted one changed.
    newest = sets[0] if sets else {}
    sealer = _text(newest.get("as-domain"))
    if sealer not in trusted:
        return ArcVerdict("none", detail=f"sealed by {sealer or 'nobody'}, not a trusted sealer")
    selector = _text(newest.get("as-selector"))
    record, digest, _failed = keys.used(selector, sealer)
    dkim_ok, dmarc_ok = _said(_text(newest.get("aar-value")), from_domain)
    return ArcVerdict("pass", sealer, selector, record, digest, dkim_ok, dmarc_ok)
