"""The gateway's own DKIM verification (dkimpy), keeping the key record each check used.

A signature proves something later only if it was verified, with the key, when
the mail arrived: providers rotate keys and some publish old private keys. So
each result keeps the TXT record it was verified with and that record's
SHA-256. A key that could not be fetched is "temperror"; one that is missing,
malformed or too short, or a signature that does not verify, is "fail".
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass

from gateway.errors import DnsTempError
from gateway.inbound.dns_txt import TxtSource

# At most this many signatures are checked per message: each may cost a lookup.
MAX_SIGNATURES = 3
_SIGNATURE = re.compile(rb"^dkim-signature\s*:", re.IGNORECASE | re.MULTILINE)
_quiet = logging.getLogger("gateway.inbound.dkim_check.dkimpy")
_quiet.addHandler(logging.NullHandler())
_quiet.propagate = False


@dataclass(frozen=True)
class DkimResult:
    domain: str
    selector: str
    result: str  # pass, fail, temperror, permerror
    key_record: str = ""
    key_sha256: str = ""
    # The header fields the signature covers, lower case.
    signed_headers: tuple[str, ...] = ()


class KeyRecords:
    """A dkimpy ``dnsfunc`` that answers from :class:`TxtLookup` and remembers what it gave."""

    def __init__(self, lookup: TxtSource) -> None:
        self.lookup = lookup
        self.given: dict[str, bytes] = {}
        self.failed: set[str] = set()

    def __call__(self, name: bytes | str, timeout: float = 5) -> bytes | None:
        text = (name.decode("ascii", "replace") if isinstance(name, bytes) else name).lower()
        key = text.rstrip(".")
        try:
            records = self.lookup.txt(key)
        except DnsTempError:
            self.failed.add(key)
            return None
        if not records:
            return None
        self.given[key] = records[0]
        return records[0]

    def used(self, selector: str, domain: str) -> tuple[str, str, bool]:
        """The record fetched for this signature, its SHA-256, and whether DNS failed."""
        key = f"{selector}._domainkey.{domain}".lower()
        record = self.given.get(key, b"")
        digest = hashlib.sha256(record).hexdigest() if record else ""
        return record.decode("utf-8", "replace"), digest, key in self.failed


def _text(value: bytes | None) -> str:
    return (value or b"").decode("ascii", "replace").strip().lower()


def _one(raw: bytes, index: int, keys: KeyRecords) -> DkimResult:
    import dkim  # see verify_dkim

    verifier = dkim.DKIM(raw, logger=_quiet, minkey=1024)
    try:
        ok, broken = bool(verifier.verify(idx=index, dnsfunc=keys)), False
    except dkim.DKIMException:
        # A signature that does not match the message (body hash) or cannot be read.
        ok, broken = False, True
    domain, selector = _text(verifier.domain), _text(verifier.selector)
    record, digest, failed = keys.used(selector, domain)
    result = "pass" if ok else ("temperror" if failed else "fail")
    if broken and not domain:
        result = "permerror"
    signed = tuple(_text(h) for h in getattr(verifier, "include_headers", ()) or ())
    return DkimResult(domain, selector, result, record, digest, signed)


def header_section(raw: bytes) -> bytes:
    """The message's header fields: up to its first empty line (CRLF or LF line ends, as
    dkimpy reads them), or all of it when it has none."""
    crlf = raw.find(b"\n\r\n")
    # An empty line ended by a bare LF counts too, when it comes first.
    lf = raw.find(b"\n\n", 0, len(raw) if crlf == -1 else crlf)
    end = lf if lf != -1 else crlf
    return raw if end == -1 else raw[: end + 1]


def verify_dkim(raw: bytes, lookup: TxtSource) -> list[DkimResult]:
    """Each DKIM signature of the message (the first MAX_SIGNATURES), verified."""
    # Only a header field is a signature (dkimpy counts no other): looked for in the
    # header section alone, as a search of a 25 MB reply's body cost 0.15 s of CPU.
    if not _SIGNATURE.search(header_section(raw)):
        return []
    # Imported by the first message checked, not at start: dkimpy and dnspython (some
    # 3.5 MB) would otherwise sit idle in both of hfa serve's processes.
    import dkim

    try:
        headers = dkim.DKIM(raw, logger=_quiet).headers
    except Exception:
        return [DkimResult("", "", "permerror")]
    count = min(sum(1 for name, _ in headers if name.lower() == b"dkim-signature"), MAX_SIGNATURES)
    keys = KeyRecords(lookup)
    out: list[DkimResult] = []
    for index in range(count):
        try:
            out.append(_one(raw, index, keys))
        except Exception as exc:
            out.append(DkimResult("", "", "permerror", key_record=type(exc).__name__))
    return out
