"""What of a reply's new text is recorded as the lawyer's words, and whether it says anything.

A lawyer who sends an answer link's email as it opened sends its prompt back ("Notes
(optional):"): the gateway's words, left out of the turn. What is left may be only a
greeting, thanks or a signature: an answer that moves nothing. Both depend on the text
alone, so the worker works them out before the write transaction that records the
reply (``inbound.ahead``), which then only reads them.
"""

from __future__ import annotations

from gateway.inbound.mailparse import ParsedMail
from gateway.outbound.quickreply import without_unanswered_prompt
from gateway.replies import is_no_answer


def recorded_body(new_text: str) -> tuple[str, bool]:
    """The turn's body, and whether it holds no answer (greetings, thanks, a signature)."""
    body = without_unanswered_prompt(new_text)
    return body, is_no_answer(body)


def body_of(mail: ParsedMail, new_text: str) -> tuple[str, bool]:
    """``recorded_body(new_text)``: as worked out before the transaction, when it was
    from this same text, or now."""
    read = mail.recorded_body
    if read is not None and read[0] == new_text:
        return read[1], read[2]
    return recorded_body(new_text)
