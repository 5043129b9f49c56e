"""Pure judgement calls on a lawyer's reply.

Nothing here touches the network or the database: the inbound worker hands in
text and headers, and gets back what the lawyer wrote now, the decision it
carries, and whether the message is an answer at all (auto-replies, bounces).

Public surface (inbound/ and bench/ depend on exactly these names; every module is
the package's own, kept so by import-linter's ``surface`` contract):

- ``extract_reply(text_plain, text_html) -> ReplyText``
- ``read_decision(new_text, subject) -> Decision``
- ``decide_answer(decision, Ask(request, proposed_action)) -> Decision``: a yes/no
  answer made a decision where the ask is whether to carry out the action
- ``read_text(new_text, subject) -> TextReading`` then ``read_reply(text, ask) -> Reading``:
  the one reading of a reply that everything downstream renders, never changes
- ``with_choice(reading, fields, subject, reference) -> Reading``: the agent's choice
  the reply picks, where the request offered choices (``choice.py``)
- ``plain_language(text) -> str | None``: the table language a text is plainly in
- ``detect_automatic(headers, subject, content_type) -> AutomaticKind | None``
- ``read_delivery_report(raw) -> DeliveryReport``, and ``report_of_message(message)`` of
  a message parsed already: the Message-IDs a delivery report cites, and its
  per-recipient Actions
- ``ReplyError``: the only exception these functions raise.
"""

from typing import Any

from gateway.errors import ReplyError
from gateway.replies.answer import decide_answer
from gateway.replies.automatic import AutomaticKind, detect_automatic
from gateway.replies.bounces import DeliveryReport, read_delivery_report, report_of_message
from gateway.replies.kinds import Ask, Decision, DecisionKind, Reading, TextReading
from gateway.replies.text import ReplyText, extract_reply

__all__ = [
    "Ask",
    "AutomaticKind",
    "Decision",
    "DecisionKind",
    "DeliveryReport",
    "Reading",
    "ReplyError",
    "ReplyText",
    "TextReading",
    "decide_answer",
    "detect_automatic",
    "extract_reply",
    "plain_language",
    "read_decision",
    "read_delivery_report",
    "read_reply",
    "read_text",
    "report_of_message",
    "with_choice",
]


# The word tables of every language (``lexicon``, about 3 MB once read) are loaded by the
# first reply read, not by importing this package: the listeners' process and an idle
# worker never read one. The functions below are the ones in ``decision``, ``language``,
# ``reading`` and ``choice``, imported on first call, so what they return is the same.


def read_decision(new_text: str, subject: str | None) -> Decision:
    """The decision carried by ``new_text``, or by a quick-reply ``subject`` and body."""
    from gateway.replies.decision import read_decision as read

    return read(new_text, subject)


def plain_language(text: str) -> str | None:
    """The table language ``text`` is plainly in, or None where the detector is unsure."""
    from gateway.replies.language import identify

    found = identify(text)
    return found[0] if len(found) == 1 else None


def read_text(new_text: str, subject: str | None) -> TextReading:
    """What the text alone says: the lawyer's words, what was set aside, the decision."""
    from gateway.replies.reading import read_text as read

    return read(new_text, subject)


def with_choice(
    reading: Reading, fields: dict[str, Any] | None, subject: str | None, reference: str
) -> Reading:
    """The reading with the agent's choice its reply picks, if the request offered choices."""
    from gateway.replies.choice import with_choice as picked

    return picked(reading, fields, subject, reference)


def read_reply(text: TextReading, ask: Ask, *, has_attachments: bool = False) -> Reading:
    """The one reading of a reply, read against what the lawyer was asked."""
    from gateway.replies.reading import read_reply as read

    return read(text, ask, has_attachments=has_attachments)
