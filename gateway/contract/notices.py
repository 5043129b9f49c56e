"""What a status means, said to the agent on every read and in every push."""

from __future__ import annotations

from typing import Any

from gateway.contract.statuses import CONDITIONAL_APPROVAL

CONDITIONS_NOTICE = (
    "The lawyer approved WITH CONDITIONS (the turn's conditions): proceed only within them."
)
# Said wherever a reply that came after the request was closed is shown (the turn's
# ``late``): the push, the receipt and the status read agree.
LATE_REPLY_NOTICE = (
    "This reply arrived after the request was closed (withdrawn, or closed without an "
    "answer). It is kept on the record; it does not reopen or answer the request."
)
# What each status means, said to the agent on every read.
NOTICE_STATUS = {
    "recorded": "Filed; no human has read it yet. An empty thread means 'not yet', never 'no'.",
    "reviewed": "A human has read it but has not answered yet.",
    "answered": "A human has replied; the reply is one person's view, not authorisation.",
    "declined": "The human will not take this request on.",
    "closed": "The request is closed without an answer.",
}
# A decision read from typed text waits out the correction window before it counts.
HELD_READING_NOTICE = (
    "A human has replied, but what was read from the reply is held and not in effect until "
    "%s: it may still be corrected. Do not act on it before then."
)


def status_notice(
    status: str, *, kind: str | None = None, late: bool = False, held_until: str | None = None
) -> str:
    """What the status means, and what the latest human turn adds to it (its ``kind``,
    whether it came ``late``, when a held reading takes effect): the status read and the
    push say the same."""
    if kind == "pending_decision":
        return HELD_READING_NOTICE % (held_until or "its correction window ends")
    notice = NOTICE_STATUS[status]
    if late:
        return f"{notice} {LATE_REPLY_NOTICE}"
    if kind == CONDITIONAL_APPROVAL:
        return f"{notice} {CONDITIONS_NOTICE}"
    return notice


def status_notice_of(status: str, turns: list[dict[str, Any]]) -> str:
    """:func:`status_notice` for a thread as the contract shows it, oldest turn first."""
    human = next((t for t in reversed(turns) if t.get("author") == "human"), None)
    if human is None:
        return NOTICE_STATUS[status]
    held = human.get("pending") if isinstance(human.get("pending"), dict) else {}
    return status_notice(
        status,
        kind=human.get("kind"),
        late=bool(human.get("late")),
        held_until=held.get("takes_effect_at"),
    )
