"""A domain's DMARC record and alignment with the From domain (RFC 7489).

The record is looked up at ``_dmarc.<From domain>`` and, when there is none,
at the organizational domain's. The organizational domain is taken as the
last two labels (three under a two-letter country code whose second label is
short, as in ``firm.co.uk``): no public suffix list ships with the gateway, and
the approximation only errs towards "not aligned" for a signer under a suffix
it does not know. ``adkim=s`` asks for the same domain; relaxed (the default)
for the same organizational domain.
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.errors import DnsTempError
from gateway.inbound.dns_txt import TxtSource

TEMPERROR = "temperror"


@dataclass(frozen=True)
class DmarcRecord:
    """What ``_dmarc`` says; ``policy`` "" when the domain publishes none."""

    policy: str = ""
    strict_dkim: bool = False
    record: str = ""
    # The DNS lookup failed: whether a policy is published is not known.
    unknown: bool = False

    @property
    def published(self) -> bool:
        return bool(self.policy)

    @property
    def shown(self) -> str:
        return TEMPERROR if self.unknown else self.policy


def organizational_domain(domain: str) -> str:
    labels = domain.lower().rstrip(".").split(".")
    if len(labels) >= 3 and len(labels[-1]) == 2 and len(labels[-2]) <= 3:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def aligned(signing_domain: str, from_domain: str, *, strict: bool) -> bool:
    signer, author = signing_domain.lower().rstrip("."), from_domain.lower().rstrip(".")
    if not signer or not author:
        return False
    if strict:
        return signer == author
    return organizational_domain(signer) == organizational_domain(author)


def _parse(text: str) -> DmarcRecord | None:
    tags: dict[str, str] = {}
    for part in text.split(";"):
        name, sep, value = part.partition("=")
        if sep:
            tags[name.strip().lower()] = value.strip().lower()
    if tags.get("v") != "dmarc1":
        return None
    policy = tags.get("p", "")
    if policy not in ("none", "quarantine", "reject"):
        # RFC 7489 6.6.3: a record with a bad p= but a rua= is read as p=none.
        policy = "none"
    return DmarcRecord(policy, tags.get("adkim") == "s", text)


def _at(lookup: TxtSource, domain: str) -> DmarcRecord | None:
    found = []
    for raw in lookup.txt(f"_dmarc.{domain}"):
        text = raw.decode("utf-8", "replace")
        if text.strip().lower().startswith("v=dmarc1"):
            found.append(text)
    # RFC 7489 6.6.3: more than one record is as good as none.
    return _parse(found[0]) if len(found) == 1 else None


def dmarc_record(lookup: TxtSource, from_domain: str) -> DmarcRecord:
    """The record that applies to ``from_domain``; ``unknown`` when DNS failed."""
    try:
        record = _at(lookup, from_domain)
        organizational = organizational_domain(from_domain)
        if record is None and organizational != from_domain:
            record = _at(lookup, organizational)
    except DnsTempError:
        return DmarcRecord(unknown=True)
    return record or DmarcRecord()
