"""Whether the new text of a reply answers anything at all.

A reply holding only a greeting, thanks or a signature moves no status, stops
no reminder and tells nobody to stand down: the lawyer has not answered yet.
"""

from __future__ import annotations

import re

# Words that, alone, say nothing about the request: greetings, thanks, sign-offs.
_NOTHING_SAID = re.compile(
    r"^(?:hi|hello|dear|thanks?|thank you|many thanks|thx|ty|cheers|regards|best|"
    r"best regards|kind regards|br|danke|merci|gracias|grazie|bedankt|dank je)"
    r"(?:\s+\w+)?[\s.!,]*$",
    re.IGNORECASE,
)


def is_no_answer(new_text: str) -> bool:
    """True when ``new_text`` holds no answer: empty, or only a greeting or thanks."""
    lines = [line.strip() for line in new_text.splitlines() if line.strip()]
    return all(_NOTHING_SAID.match(line) for line in lines)
