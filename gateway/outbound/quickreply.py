"""One-click answers: ``mailto:`` links to the lawyer's own signed reply address.

Each link opens the lawyer's mail client with a subject that is one decision
keyword and the reference ("APPROVE [HFA-00001]") and a body whose first line repeats it,
followed by a blank line and a prompt for conditions or reasons. The reply
parser reads the keyword at the start of the subject and of the body; the
prompt sits in its own paragraph, so nothing the lawyer writes under it can
change the decision that was clicked.

URLs follow RFC 6068: every character outside the unreserved set is
percent-encoded as UTF-8 (a space is ``%20``, never ``+``), and line breaks are
``%0D%0A``. No JavaScript and no web page is involved, so the links work in
Gmail, Outlook, Apple Mail and phone clients, and every answer is still an
email in the lawyer's own mailbox.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote

from gateway.i18n import N_, _, in_every_language

# Characters RFC 6068 allows unencoded in the address part ("some-delims" and "@").
_ADDRESS_SAFE = "@!$'()*+,;:"


@dataclass(frozen=True)
class QuickReply:
    """One answer button: its keyword, the prompt under it and what it means.

    The keyword is the same in every language (it is what decides); the prompt is a
    message id, written in the lawyer's language and read back in any of them.
    """

    key: str
    keyword: str
    prompt: str
    meaning: str
    color: str
    # Empty list items under the prompt, for the lawyer to fill in.
    blank_items: int = 0


QUICK_REPLIES: tuple[QuickReply, ...] = (
    QuickReply(
        "approve",
        "APPROVE",
        N_("Notes (optional):"),
        N_("you approve the proposed action as it stands"),
        "#166534",
    ),
    QuickReply(
        "approve_with_conditions",
        "APPROVE WITH CONDITIONS",
        N_("Conditions (one per line, each starting with -):"),
        N_("you approve it only within the conditions you list"),
        "#166534",
        blank_items=2,
    ),
    QuickReply(
        "reject",
        "REJECT",
        N_("Reasons, or what to do instead:"),
        N_("you do not approve it"),
        "#991b1b",
    ),
    QuickReply(
        "question",
        "QUESTION",
        N_("What I need to know first:"),
        N_("you need more before you can answer"),
        "#1e3a8a",
    ),
    QuickReply(
        "decline",
        "DECLINE",
        N_("Why (optional):"),
        N_("you will not take this request on"),
        "#374151",
    ),
    QuickReply(
        "acknowledge",
        "I'M ON IT",
        N_("I have read this and expect to answer by:"),
        N_("you have read it and are working on it; reminders pause"),
        "#374151",
    ),
)


@dataclass(frozen=True)
class QuickLink:
    """A quick reply made concrete for one lawyer and one request."""

    reply: QuickReply
    subject: str
    body: str
    url: str


def mailto(address: str, subject: str, body: str) -> str:
    """An RFC 6068 ``mailto:`` URL with a pre-filled subject and body."""
    return _mailto(quote(address, safe=_ADDRESS_SAFE), subject, _quoted_body(body))


def _mailto(quoted_address: str, subject: str, quoted_body: str) -> str:
    return f"mailto:{quoted_address}?subject={quote(subject, safe='')}&body={quoted_body}"


# The quick replies' bodies are the same in every email: each is quoted once.
@lru_cache(maxsize=64)
def _quoted_body(body: str) -> str:
    return quote(body.replace("\r\n", "\n").replace("\n", "\r\n"), safe="")


def quick_subject(keyword: str, reference: str) -> str:
    """``APPROVE [HFA-00001]``: the keyword and the reference, nothing the agent wrote.

    The agent's words stay out: a "not" or "without" in its ask, next to APPROVE,
    would read as a negated approval and turn the click into no decision.
    """
    return f"{keyword} [{reference}]"


def quick_body(reply: QuickReply) -> str:
    """The link's body, its prompt in the language being written."""
    prompt = _(reply.prompt)
    return f"{reply.keyword}\n\n{prompt}\n" + "- \n" * reply.blank_items


def links_for(address: str, reference: str) -> list[QuickLink]:
    """Every quick reply for one lawyer's signed reply address."""
    out = []
    to = quote(address, safe=_ADDRESS_SAFE)
    for reply in QUICK_REPLIES:
        subject = quick_subject(reply.keyword, reference)
        body = quick_body(reply)
        out.append(QuickLink(reply, subject, body, _mailto(to, subject, _quoted_body(body))))
    return out


_CONDITIONS_PROMPT = next(r.prompt for r in QUICK_REPLIES if r.key == "approve_with_conditions")


@lru_cache(maxsize=1)
def _conditions_heading() -> re.Pattern[str]:
    """A "Conditions ...:" line, or the conditions prompt as any language writes it."""
    prompts = "|".join(re.escape(p) for p in sorted(in_every_language(_CONDITIONS_PROMPT)))
    return re.compile(
        r"^\s*(?:conditions\b[^\n]*:|" + prompts + r")\s*$", re.IGNORECASE | re.MULTILINE
    )


_ITEM = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+(.*\S)\s*$")


_UNFILLED_ITEMS = frozenset({"-", "*", "•"})


@lru_cache(maxsize=1)
def _prompt_lines() -> frozenset[str]:
    """Every prompt in every language: an email written in one is answered from any client."""
    return frozenset(
        line.strip() for reply in QUICK_REPLIES for line in in_every_language(reply.prompt)
    )


def without_unanswered_prompt(text: str) -> str:
    """``text`` without the prompts of answer links that the lawyer left empty.

    A lawyer who sends an answer link's email as it opened sends its prompt back
    ("Notes (optional):", "Conditions ...:" with empty "- " lines), in whatever
    language the email was written: those are the gateway's words, not the
    lawyer's. A prompt line is left out when nothing but empty list items comes
    before the next blank line; a prompt with the lawyer's words right under it
    stays, as their heading.
    """
    lines = text.split("\n")
    kept: list[str] = []
    index = 0
    while index < len(lines):
        if lines[index].strip() in _prompt_lines():
            after = index + 1
            while after < len(lines) and lines[after].strip() in _UNFILLED_ITEMS:
                after += 1
            if after == len(lines) or not lines[after].strip():
                index = after
                continue
        kept.append(lines[index])
        index += 1
    if len(kept) == len(lines):
        return text
    return "\n".join(kept).strip("\n")


def conditions_in(text: str) -> list[str]:
    """The conditions listed under the "Conditions ...:" prompt of a quick reply.

    Only list lines directly under the heading count; the first line that is
    not a list item ends the list. Empty "- " lines left from the prompt are
    skipped.
    """
    heading = _conditions_heading().search(text[:100_000])
    if heading is None:
        return []
    found: list[str] = []
    for line in text[heading.end() :].lstrip("\r\n").splitlines():
        if not line.strip():
            if found:
                break
            continue
        item = _ITEM.match(line)
        if item is None:
            if line.strip() in ("-", "*", "•"):
                continue
            break
        found.append(item.group(1)[:1000])
        if len(found) >= 50:
            break
    return found
