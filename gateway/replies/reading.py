"""One reading of a reply: the only value that says what the lawyer's answer is.

A reply is read in two steps, both here:

1. ``read_text(new_text, subject)`` works on the text alone (in the reading process,
   off the worker's event loop): the prompts of answer links left empty are set aside,
   then a trailing signature block (``cut``), and the decision is read from what is left.
2. ``read_reply(text, ask)`` reads it against what the lawyer was asked: a yes or no
   becomes a decision where the ask is whether to act, the action's own verb approves or
   forbids it, and the approval's conditions are settled.

The ``Reading`` it returns is what the turn records, what moves the status, what the
receipt tells the lawyer, what the agent is pushed, how the vote counts and what the
other lawyers hear. Nobody downstream changes its kind or its conditions: a consumer
chooses words and layout, never what the reply said.
"""

from __future__ import annotations

from dataclasses import replace

from gateway.errors import ReplyError, only_reply_errors
from gateway.replies.actions import asks_to_act, read_action
from gateway.replies.answer import asks_whether_to_act, decide_answer
from gateway.replies.cut import cut_contact_block
from gateway.replies.decision import read_decision
from gateway.replies.empty import is_no_answer
from gateway.replies.exceeds import exceeded
from gateway.replies.kinds import (
    KIND_OF,
    Ask,
    Decision,
    DecisionKind,
    Reading,
    TextReading,
)
from gateway.replies.prompts import conditions_in, without_unanswered_prompt
from gateway.replies.settle import ironic, settled_conditions


def read_text(new_text: str, subject: str | None) -> TextReading:
    """Step 1: the lawyer's words and the decision they carry, from the text alone."""
    if not isinstance(new_text, str):
        raise ReplyError("new_text must be str")
    body = without_unanswered_prompt(new_text)
    said, cut = cut_contact_block(body)
    decision = read_decision(said, subject)
    says_nothing = not said.strip() or is_no_answer(body)
    return TextReading(new_text, said, cut, decision, tuple(conditions_in(body)), says_nothing)


def read_reply(text: TextReading, ask: Ask, *, has_attachments: bool = False) -> Reading:
    """Step 2: the reading of the reply against what the lawyer was asked."""
    with only_reply_errors("cannot read reply"):
        return _read(text, ask, has_attachments)


def _read(text: TextReading, ask: Ask, has_attachments: bool) -> Reading:
    if text.says_nothing and not has_attachments:
        return Reading("no_answer", said=text.said, cut=text.cut)
    # Whether the ask is whether to act, in English or in the lawyer's language
    # ("Darf ich den Termin buchen?"): only then does a yes or a no decide.
    read = text.decision
    answered = read.kind is None and read.answer is not None and not read.ambiguous
    asked = (asks_whether_to_act(ask) or asks_to_act(ask)) if answered else None
    decision = decide_answer(read, ask, whether_to_act=asked)
    if decision.kind is None:
        # The action's own verb ("Pay it.", "Sí, fírmalo.", "Bitte nicht zahlen."): read with
        # every rule that stops an approval, so it may settle what a bare yes left open.
        acted = read_action(text.said, ask)
        if acted is not None and acted.kind is not None and not acted.ambiguous:
            decision = decide_answer(acted, ask, whether_to_act=asked)
    if decision.kind is None or decision.ambiguous:
        return _undecided(decision, text)
    if decision.kind is DecisionKind.APPROVAL and (irony := ironic(text.said)) is not None:
        # "Sure, why not", "ja ja": said against itself, so no decision either way.
        return _undecided(replace(decision, because=f"irony: {irony}"), text, unclear=True)
    kind = KIND_OF[decision.kind]
    conditions: tuple[str, ...] = ()
    if decision.kind is DecisionKind.APPROVAL:
        # The list under the "Conditions ...:" prompt is what the lawyer wrote the
        # conditions into; the words of the prompt are not one.
        written = text.listed or decision.conditions
        settled = settled_conditions(
            written,
            ask,
            by_verb=decision.read_from == "action_verb",
            introduced=":" if text.listed else decision.because,  # the prompt's list
        )
        if settled.doubt is not None:
            return _undecided(replace(decision, because=settled.doubt), text, unclear=True)
        conditions = settled.conditions
        kind = "conditional_approval" if conditions else "approval"
    return Reading(
        kind,
        conditions,
        exceeds=exceeded(conditions, ask) if conditions else None,
        read_from=decision.read_from or "keyword",
        because=decision.because or decision.trigger,
        trigger=decision.trigger,
        answer=decision.answer,
        language=decision.language,
        said=text.said,
        cut=text.cut,
    )


def _undecided(decision: Decision, text: TextReading, *, unclear: bool = False) -> Reading:
    return Reading(
        "reply",
        because=decision.because,
        trigger=decision.trigger,
        answer=decision.answer,
        language=decision.language,
        unclear=unclear or decision.ambiguous,
        said=text.said,
        cut=text.cut,
    )
