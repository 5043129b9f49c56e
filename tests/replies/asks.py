"""Asks as agents file them, and a reply read against one as the gateway reads it."""

from __future__ import annotations

from gateway import replies
from gateway.replies.kinds import Ask

PAY = Ask(
    "May I pay the expert's invoice of EUR 4,200.00?", "Pay the expert's invoice of EUR 4,200.00"
)


SEND = Ask("May I send the signed letter to Borealis AG?", "Send the signed letter to Borealis AG")


PUBLISH = Ask("Should I publish the press release today?", "Publish the press release today")


FILE_ON_15TH = Ask(
    "Should I file the statement of defence on Friday the 15th?",
    "File the statement of defence on Friday the 15th",
)


def read(text: str, ask: Ask) -> replies.Reading:
    new_text = replies.extract_reply(text, None).new_text
    return replies.read_reply(replies.read_text(new_text, None), ask)
