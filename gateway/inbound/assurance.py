"""Who really sent a reply: the sender-assurance ladder.

``sender.verify_sender`` says whether From is the lawyer and nothing trusted
says no. This module says how well that is proven, recorded on the human turn
as ``authenticated_by``:

1. ``mta-authres``: the trusted server's Authentication-Results (DMARC, an
   aligned DKIM signature, or an aligned SPF pass);
2. ``dkim``: when that server wrote none, the gateway's own DKIM verification,
   aligned with the From domain as its DMARC record asks (``adkim``);
3. ``arc``: an ARC chain whose newest seal is by a trusted sealer;
4. ``token``: the signed reply address alone.

A signature proves the lawyer wrote *that* message; a message signed for one
thread and replayed to another's reply address proves nothing there. So a
DKIM or ARC pass counts only when the address it was delivered to stands in
the signed To or Cc.

What the proof must reach for the reply to be recorded is the sender policy's
(``sender_policy``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from datetime import datetime
from email.message import Message
from email.utils import getaddresses
from typing import Any

from sqlalchemy.orm import Session

from gateway.contract import iso
from gateway.inbound.arc import ArcVerdict, verify_arc
from gateway.inbound.dkim_check import DkimResult, verify_dkim
from gateway.inbound.dmarc import DmarcRecord, aligned, dmarc_record
from gateway.inbound.dns_txt import Budgeted, lookup_for
from gateway.inbound.reply import Reply
from gateway.inbound.sender import SenderCheck, results_claiming, verify_sender
from gateway.settings.config import Config
from gateway.store import blobs

# The most one message's new DNS questions may take, all together.
MESSAGE_DNS_SECONDS = 6.0
_RESULT = re.compile(r"\b(dmarc|dkim|spf)\s*=\s*([a-z]+)(?P<props>[^;]*)", re.IGNORECASE)
_PROP = re.compile(r"(header\.d|header\.s|header\.from|smtp\.mailfrom)\s*=\s*([^\s;]+)", re.I)


@dataclass(frozen=True)
class GatewayEvidence:
    """What the gateway found itself (DNS, no database): read before the write transaction."""

    dkim: tuple[DkimResult, ...] = ()
    arc: ArcVerdict = field(default_factory=lambda: ArcVerdict("none"))
    dmarc: DmarcRecord = field(default_factory=DmarcRecord)


def gather(raw: bytes, from_domain: str, config: Config, *, mta_wrote: bool) -> GatewayEvidence:
    """DKIM (unless the trusted server wrote results), ARC from trusted sealers, DMARC."""
    lookup = Budgeted(lookup_for(config.dns_resolver), MESSAGE_DNS_SECONDS)
    if lookup.off or not from_domain:
        return GatewayEvidence(dmarc=DmarcRecord(unknown=not lookup.off))
    dkim = () if mta_wrote else tuple(verify_dkim(raw, lookup))
    arc = ArcVerdict("none")
    if config.arc_trusted_sealers:
        arc = verify_arc(raw, lookup, config.arc_trusted_sealers, from_domain)
    return GatewayEvidence(dkim, arc, dmarc_record(lookup, from_domain))


def _addresses_in(message: Message, names: tuple[str, ...]) -> set[str]:
    values = [str(v) for k, v in message.raw_items() if k.lower() in names]
    return {a.strip().lower() for _n, a in getaddresses(values) if a}


def bound_to(message: Message, delivered_to: Collection[str], signed: Collection[str]) -> bool:
    """The address the message was delivered to stands in a signed To or Cc."""
    covered = tuple(h for h in ("to", "cc") if not signed or h in signed)
    wanted = {a.strip().strip("<>").lower() for a in delivered_to}
    return bool(covered) and bool(wanted & _addresses_in(message, covered))


def _entry(
    method: str, domain: str, when: datetime, dmarc: DmarcRecord, **more: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "method": method,
        "domain": domain,
        "selector": "",
        "key_sha256": "",
        "key_record": "",
        "result": "none",
        "aligned": False,
        "dmarc_policy": dmarc.shown,
        "verified_by": "gateway",
        "checked_at": iso(when),
    }
    out.update(more)
    return out


def _mta_step(
    message: Message, config: Config, domain: str, dmarc: DmarcRecord, when: datetime
) -> tuple[dict[str, Any], str] | None:
    """The trusted server's word: (entry, strength) when it wrote results, else None."""
    results = results_claiming(message, config.trusted_authserv_id)[0]
    if not results:
        return None
    best: tuple[dict[str, Any], str] | None = None
    for text in results:
        for match in _RESULT.finditer(text):
            method, result = match.group(1).lower(), match.group(2).lower()
            props = {k.lower(): v.strip().lower() for k, v in _PROP.findall(match.group("props"))}
            if result != "pass":
                continue
            signer = props.get("header.d", "")
            mailfrom = props.get("smtp.mailfrom", "").rpartition("@")[2]
            strength = ""
            if method == "dkim" and aligned(signer, domain, strict=dmarc.strict_dkim):
                strength = "dkim"
            elif (method == "dmarc" and props.get("header.from", domain) == domain) or (
                method == "spf" and aligned(mailfrom, domain, strict=False)
            ):
                strength = "dmarc"
            if strength and (best is None or strength == "dkim"):
                entry = _entry(
                    "mta-authres",
                    signer or domain,
                    when,
                    dmarc,
                    selector=props.get("header.s", ""),
                    result="pass",
                    aligned=True,
                    verified_by="mta",
                    authserv_id=config.trusted_authserv_id,
                    evidence=f"{method}=pass",
                )
                best = (entry, strength)
    if best is None:
        return _entry(
            "mta-authres",
            domain,
            when,
            dmarc,
            verified_by="mta",
            authserv_id=config.trusted_authserv_id,
        ), "token"
    return best


# Each rung of the ladder (_mta_step, _dkim_step, _arc_step) takes the same arguments on
# purpose: ``assure`` tries them in turn, and each says on its own what it proves.
def _dkim_step(
    evidence: GatewayEvidence,
    message: Message,
    domain: str,
    delivered_to: Collection[str],
    when: datetime,
) -> tuple[dict[str, Any], str] | None:
    dmarc = evidence.dmarc
    for result in evidence.dkim:
        if result.result != "pass" or not aligned(result.domain, domain, strict=dmarc.strict_dkim):
            continue
        if not bound_to(message, delivered_to, result.signed_headers):
            continue
        entry = _entry(
            "dkim",
            result.domain,
            when,
            dmarc,
            selector=result.selector,
            key_sha256=result.key_sha256,
            key_record=result.key_record,
            result="pass",
            aligned=True,
        )
        return entry, "dkim"
    return None


def _arc_step(
    evidence: GatewayEvidence,
    message: Message,
    domain: str,
    delivered_to: Collection[str],
    when: datetime,
) -> tuple[dict[str, Any], str] | None:
    arc = evidence.arc
    if arc.result != "pass" or not (arc.dkim_aligned or arc.dmarc_pass):
        return None
    if not bound_to(message, delivered_to, ()):
        return None
    entry = _entry(
        "arc",
        arc.sealer,
        when,
        evidence.dmarc,
        selector=arc.selector,
        key_sha256=arc.key_sha256,
        key_record=arc.key_record,
        result="pass",
        aligned=True,
        author_domain=domain,
    )
    return entry, "dkim" if arc.dkim_aligned else "dmarc"


def _why_not(evidence: GatewayEvidence, domain: str) -> str:
    """What the gateway's own checks found, for a reply that rests on its token."""
    seen = [f"dkim={r.result} ({r.domain or '?'})" for r in evidence.dkim]
    if evidence.arc.result != "none" or evidence.arc.detail not in ("", "not sealed"):
        seen.append(f"arc={evidence.arc.result}: {evidence.arc.detail}".rstrip(": "))
    return "; ".join(seen) or f"no DKIM signature of {domain}"


def assure(
    check: SenderCheck,
    message: Message,
    config: Config,
    evidence: GatewayEvidence,
    delivered_to: Collection[str],
    when: datetime,
) -> SenderCheck:
    """``check`` (From is the lawyer) with the ladder's ``authenticated_by`` filled in."""
    domain = check.address.rpartition("@")[2]
    dmarc = evidence.dmarc
    step = _mta_step(message, config, domain, dmarc, when)
    if step is not None and step[1] != "token":
        bound = bound_to(message, delivered_to, ())
        step = step if bound else (step[0] | {"aligned": False, "result": "none"}, "token")
    if step is None or step[1] == "token":
        step = (
            _dkim_step(evidence, message, domain, delivered_to, when)
            or _arc_step(evidence, message, domain, delivered_to, when)
            or step
            or (_entry("token", domain, when, dmarc, detail=_why_not(evidence, domain)), "token")
        )
    entry, strength = step
    return replace(check, authenticated_by=entry, strength=strength, dmarc=dmarc)


def evidence_for(mail: Any, config: Config, raw: bytes | None = None) -> GatewayEvidence:
    """What the gateway's own checks found for a read message (``ParsedMail``): worked
    out before the write transaction (:func:`prefetch`), or now."""
    if isinstance(mail.evidence, GatewayEvidence):
        return mail.evidence
    address = (mail.sender or (None, ""))[0] or ""
    raw = mail.raw if mail.raw is not None else raw
    mta_wrote = bool(results_claiming(mail.message, config.trusted_authserv_id)[0])
    evidence = gather(raw or b"", address.rpartition("@")[2], config, mta_wrote=mta_wrote)
    mail.evidence = evidence
    return evidence


def prefetch(config: Config, mails: Collection[Any]) -> None:
    """The DNS lookups of each read reply, done before the write transaction (which would
    otherwise hold the write lock while waiting for DNS)."""
    for mail in mails:
        sender = getattr(mail, "sender", None)
        if getattr(mail, "report", None) is not None:
            # A delivery report (mail to the bounce address) is never an answer.
            continue
        if sender is not None and sender[0] and getattr(mail, "raw", None) is not None:
            evidence_for(mail, config)


def proven_sender(config: Config, session: Session, reply: Reply) -> SenderCheck:
    """A reply's sender: one mailbox, the lawyer's (the recipient's address or an alias),
    and how well it is proven (the ladder); not ok, with the reason, when it is not the
    lawyer's."""
    mail, address = reply.mail, reply.recipient.address
    check = verify_sender(
        mail.message,
        address,
        config.trusted_authserv_id,
        config.aliases_of(address),
        require_authenticated=config.require_authenticated_sender,
        sender=mail.sender,
    )
    if not check.ok:
        return check
    # The worker hands every message on with its bytes; only a caller without them reads them.
    raw = blobs.raw_of(session, reply.row) if mail.raw is None else None
    evidence = evidence_for(mail, config, raw)
    return assure(check, mail.message, config, evidence, reply.row.rcpt_to, reply.now)
