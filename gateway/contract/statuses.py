"""The contract's vocabulary: the statuses a request moves through, the kinds of answer."""

from __future__ import annotations

# The contract's statuses, in the order a request moves through them.
STATUSES = ("recorded", "reviewed", "answered", "declined", "closed")
# Still waiting for a human's answer: reminders, escalation and deadlines act on these.
AWAITING_ANSWER = ("recorded", "reviewed")
# The kinds of human turn that answer a request (a question or decline is an answer too:
# the ball is then in the agent's court).
# ``conditional_approval``: an approval the human tied to conditions (the turn's
# ``conditions``); never to be read as a bare approval.
HUMAN_ANSWER_KINDS = (
    "reply", "approval", "conditional_approval", "rejection", "question", "decline", "close",
)  # fmt: skip
CONDITIONAL_APPROVAL = "conditional_approval"
APPROVAL_KINDS = ("approval", CONDITIONAL_APPROVAL)
