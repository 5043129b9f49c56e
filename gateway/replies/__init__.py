"""Pure judgement calls on a lawyer's reply.

Nothing here touches the network or the database: the inbound worker hands in
text and headers, and gets back what the lawyer wrote now, the decision it
carries, and whether the message is an answer at all (auto-replies, bounces).

Public surface (the inbound worker depends on exactly these names):

- ``extract_reply(text_plain, text_html) -> ReplyText``
- ``read_decision(new_text, subject) -> Decision``
- ``decide_answer(decision, Ask(request, proposed_action)) -> Decision``: a yes/no
  answer made a decision where the ask is whether to carry out the action
- ``is_no_answer(new_text) -> bool``: only a greeting, thanks or a signature is left
- ``detect_automatic(headers, subject, content_type) -> AutomaticKind | None``
- ``find_bounced_message_ids(raw) -> list[str]``: our Message-IDs a DSN is about
- ``is_own_loop(headers, own_domain, loop_header="x-hfa-loop") -> bool``
- ``ReplyError``: the only exception these functions raise.
"""

from gateway.replies.automatic import AutomaticKind, detect_automatic, is_own_loop
from gateway.replies.bounces import find_bounced_message_ids
from gateway.replies.decision import Ask, Decision, DecisionKind, decide_answer, read_decision
from gateway.replies.empty import is_no_answer
from gateway.replies.text import ReplyError, ReplyText, extract_reply

__all__ = [
    "Ask",
    "AutomaticKind",
    "Decision",
    "DecisionKind",
    "ReplyError",
    "ReplyText",
    "decide_answer",
    "detect_automatic",
    "extract_reply",
    "find_bounced_message_ids",
    "is_no_answer",
    "is_own_loop",
    "read_decision",
]
