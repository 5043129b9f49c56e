"""The prompts of the answer links, as the lawyer sends them back: never the lawyer's words.

An answer link opens a mail whose body is the keyword, a blank line and a prompt
("Notes (optional):", "Conditions (one per line, each starting with -):" with empty
"- " items), in the language the email was written in. What the lawyer types under a
prompt is theirs; the prompt itself, left empty, is the gateway's. The prompts are
those of ``quick.PROMPTS``, in every language the gateway writes emails in.
"""

from __future__ import annotations

import re
from functools import cache

from gateway.i18n import in_every_language
from gateway.replies.quick import PROMPTS, WITH_CONDITIONS

_UNFILLED_ITEMS = frozenset({"-", "*", "•"})
_ITEM = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+(.*\S)\s*$")
_MAX_SCAN = 100_000
_MAX_ITEMS = 50


@cache
def _prompt_lines() -> frozenset[str]:
    """Every prompt in every language: an email written in one is answered from any client."""
    return frozenset(
        line.strip() for prompt in PROMPTS.values() for line in in_every_language(prompt)
    )


@cache
def _conditions_heading() -> re.Pattern[str]:
    """A "Conditions ...:" line, or the conditions prompt as any language writes it."""
    prompts = "|".join(re.escape(p) for p in sorted(in_every_language(PROMPTS[WITH_CONDITIONS])))
    return re.compile(
        r"^\s*(?:conditions\b[^\n]*:|" + prompts + r")\s*$", re.IGNORECASE | re.MULTILINE
    )


def without_unanswered_prompt(text: str) -> str:
    """``text`` without the prompts of answer links that the lawyer left empty.

    A prompt line is left out when nothing but empty list items comes before the next
    blank line; a prompt with the lawyer's words right under it stays, as their heading.
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

    Only list lines directly under the heading count; the first line that is not a
    list item ends the list. Empty "- " lines left from the prompt are skipped.
    """
    heading = _conditions_heading().search(text[:_MAX_SCAN])
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
            if line.strip() in _UNFILLED_ITEMS:
                continue
            break
        found.append(item.group(1)[:1000])
        if len(found) >= _MAX_ITEMS:
            break
    return found
