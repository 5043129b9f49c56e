"""An answer link that names another request: held, and the lawyer asked, never a decision.

Every answer link's subject carries its request's reference (``APPROVE
[HFA-00001]``). Sent to another request's reply address (a link of request A
mailed to B's address), or with the reference edited, the reply token says B
and the link says A: which request the lawyer meant is unknown, so the reply
decides neither. It is held like a reply whose sender is not proven
(``unverified_sender``), which asks the lawyer at the address B was sent to:
their CONFIRM records it as B's answer; otherwise nothing is recorded.
"""

from __future__ import annotations

import re

from gateway.contract import number_from_reference, reference_for
from gateway.replies import Reading

# A reference in brackets, as an answer link's subject carries it.
_BRACKETED = re.compile(r"\[\s*([A-Za-z]{2,8}\s*-\s*\d{1,18})\s*\]")

WHY = "the answer link names {named}, but it was sent to the reply address of {reference}"


def named_references(subject: str) -> list[str]:
    """The request references a subject names in brackets, as the gateway writes them."""
    found = []
    for match in _BRACKETED.finditer(subject):
        number = number_from_reference("".join(match.group(1).split()))
        if number is not None:
            found.append(reference_for(number))
    return found


def other_request(reading: Reading, subject: str, reference: str) -> str:
    """Why an answer link reply is held for naming another request than ``reference``,
    or "" when it names this one (or is no answer link)."""
    if reading.read_from != "quick_reply":
        return ""
    others = [named for named in named_references(subject) if named != reference]
    if not others:
        return ""
    return WHY.format(named=", ".join(dict.fromkeys(others)), reference=reference)
