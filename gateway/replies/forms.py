"""The form of a condition: what makes typed words a limit on an approval.

A condition is a condition word of any table ("only", "subject to", "provided", "once",
"unless", "nur", "sous réserve", "であれば"...), a limit (an amount, a share, a number), or
a list item. Both the settling of an approval's conditions and the reading of the action's
own verb (a condition typed before the verb: "30時間以内であれば、依頼して結構です") ask it.
"""

from __future__ import annotations

import re

from gateway.replies.phrases import find, merged_index
from gateway.replies.words import list_item, words

_KEYS = ("conditions", "provisos", "contingent", "first_steps", "closing_steps")
LIMIT = re.compile(
    r"\d{2,}|\d[.,]\d|[€$£¥%]|\b(?:eur|usd|gbp|chf|sek|dkk|nok|pln|czk|rub|uah|jpy|cny)\b",
    re.IGNORECASE,
)


def marked(text: str) -> bool:
    """A condition word of any table, or a list item."""
    found = words(text)
    return list_item(text) is not None or any(
        find(found, merged_index(key)) is not None for key in _KEYS
    )


def condition_form(text: str) -> bool:
    """A condition as lawyers write one: a condition word, a limit, or a list item."""
    return bool(LIMIT.search(text)) or marked(text)
