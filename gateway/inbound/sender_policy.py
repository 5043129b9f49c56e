"""The sender policy: what a reply from the lawyer's domain must show to be recorded.

``assurance`` says how well the sender is proven; this module says whether that is
enough for what the reply decides. The policy (HFA_SENDER_POLICY) says what a reply
from a domain must show: ``dkim`` an aligned DKIM pass, ``dmarc`` that or a DMARC/SPF
pass at the trusted server or trusted sealer, ``token`` nothing more. A domain not
listed: a question or an I'M ON IT passes on the token, anything that answers
(approval, rejection, decline, close, a plain answer) needs aligned DKIM when the
domain publishes a DMARC record, and is held when DNS cannot say whether it does
(temperror): unknown is never taken for "no policy". Where the domain publishes none,
a decision (approval, rejection, decline, close) still needs what ``dmarc`` asks
(HFA_WEAK_SENDER_DECISIONS=confirm, the default): without it, it is held and the
lawyer asked to confirm it (``challenge``); ``record`` takes it on the token.
"""

from __future__ import annotations

from gateway.inbound.dmarc import DmarcRecord
from gateway.inbound.sender import SenderCheck
from gateway.replies import DecisionKind
from gateway.settings.config import Config

# What may be recorded on the reply address alone under the default rule.
TOKEN_KINDS = frozenset({DecisionKind.QUESTION, DecisionKind.ACKNOWLEDGE})


def policy_of(config: Config, domain: str) -> str:
    """The explicit policy for ``domain`` (or its parent domains), "" when none is set."""
    labels = domain.lower().split(".")
    for start in range(len(labels) - 1):
        found = config.sender_policy.get(".".join(labels[start:]))
        if found:
            return found
    return ""


def _needs(config: Config, check: SenderCheck, kind: DecisionKind | None) -> tuple[str, str]:
    """(what the reply must show: dkim, dmarc or token; why)."""
    domain = check.address.rpartition("@")[2]
    policy = policy_of(config, domain)
    if policy:
        return policy, f"HFA_SENDER_POLICY asks {policy} of {domain}"
    if kind in TOKEN_KINDS:
        return "token", ""
    dmarc = check.dmarc if isinstance(check.dmarc, DmarcRecord) else DmarcRecord()
    if dmarc.unknown:
        return "dkim", f"whether {domain} publishes a DMARC policy could not be looked up"
    if dmarc.published:
        return "dkim", f"{domain} publishes a DMARC policy (p={dmarc.policy})"
    if kind is not None and config.lawyer.weak_sender_decisions == "confirm":
        # A decision is never taken on the reply address alone: the lawyer confirms it.
        return "dmarc", (
            f"{domain} publishes no DMARC policy and a decision is not taken on the reply "
            "address alone (HFA_WEAK_SENDER_DECISIONS=confirm)"
        )
    return "token", ""


def refusal(config: Config, check: SenderCheck, kind: DecisionKind | None) -> str:
    """Why this reply may not be recorded as it reads, or "" when it may."""
    needed, why = _needs(config, check, kind)
    shown = check.strength or "token"
    if needed == "token" or shown == "dkim" or (needed == "dmarc" and shown == "dmarc"):
        return ""
    what = "an aligned DKIM signature" if needed == "dkim" else "aligned DKIM or SPF, or DMARC"
    found = check.authenticated_by if isinstance(check.authenticated_by, dict) else {}
    detail = found.get("detail") or found.get("method") or "nothing"
    return f"sender not verified: {why}, so this reply needs {what}; found {detail}"
