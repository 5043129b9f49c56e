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

from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote

from gateway import options
from gateway.i18n import N_, _

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


# A choice button's keyword: "CHOICE B". The letter is the same in every language, and
# nothing the agent wrote goes into the subject or the body (``replies.choice``).
CHOICE_KEYWORD = "CHOICE"


@dataclass(frozen=True)
class ChoiceLink:
    """One choice of a multiple choice, as a button: its letter, the agent's text, the link."""

    letter: str
    text: str
    subject: str
    body: str
    url: str


def choice_keyword(letter: str) -> str:
    return f"{CHOICE_KEYWORD} {letter}"


def choice_links(address: str, reference: str, choices: tuple[str, ...]) -> list[ChoiceLink]:
    """A button per choice for one lawyer's signed reply address, lettered A, B, C..."""
    to = quote(address, safe=_ADDRESS_SAFE)
    out = []
    for index, text in enumerate(choices):
        letter = options.letter(index)
        keyword = choice_keyword(letter)
        subject = quick_subject(keyword, reference)
        body = f"{keyword}\n"
        out.append(
            ChoiceLink(letter, text, subject, body, _mailto(to, subject, _quoted_body(body)))
        )
    return out


def untouched_choice(
    subject: str, lines: list[str], reference: str, letters: int
) -> QuickReply | None:
    """The choice button this reply is, sent as it opened (its subject, and its keyword
    as the whole body), as a quick reply of its own; None for anything else."""
    wanted = " ".join(subject.split()).casefold()
    for index in range(letters):
        keyword = choice_keyword(options.letter(index))
        if quick_subject(keyword, reference).casefold() == wanted and lines == [keyword]:
            return QuickReply(f"choice_{index}", keyword, "", "", "#1e3a8a")
    return None
