"""A receipt restates what was recorded, so the lawyer can check it against what they meant.

"You REJECTED: <the proposed action>", the conditions as a list, the
attachments received (name, size, sha256 prefix) and, when no decision was
read, why not and which decision on record still stands. A reply to a
request that was already withdrawn or closed says it was kept, not acted on.
Everything is read from the thread itself, as recorded.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from gateway.contract import LATE_REPLY_NOTICE
from gateway.outbound import when
from gateway.store.models import Request, Turn

_RECORDED_AS = {
    "approval": ("You APPROVED", "your APPROVAL"),
    "conditional": ("You APPROVED, with conditions", "your APPROVAL WITH CONDITIONS"),
    "rejection": ("You REJECTED", "your REJECTION"),
    "decline": ("You DECLINED this request", "your DECLINE"),
    "question": ("You asked a QUESTION", "your QUESTION"),
    "acknowledgement": ("You said I'M ON IT", "your I'M ON IT"),
    "close": ("You CLOSED this request", "your CLOSE"),
}
_EFFECT = {
    "approval": "The agent is told it may go ahead with the proposed action.",
    "conditional": "The agent is told it may go ahead only within these conditions.",
    "rejection": "The agent is told not to go ahead.",
    "decline": "The agent is told you will not take this request on.",
    "question": "The agent is asked to answer your question; the request stays open and "
    "waits for your decision.",
    "acknowledgement": "The request is marked as read (reviewed) and reminders pause. Reply "
    "APPROVE, REJECT, QUESTION or DECLINE when you are ready.",
    "close": "The request is closed.",
}


# Decisions about the proposed action; a question or an I'M ON IT decides nothing.
_ON_RECORD = ("approval", "rejection", "decline", "close")


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1048576:.1f} MB"


def _this_turn(turns: list[Turn], payload: dict[str, Any]) -> Turn | None:
    seq = payload.get("turn_seq")
    humans = [t for t in turns if t.author == "human"]
    if isinstance(seq, int):
        return next((t for t in humans if t.seq == seq), None)
    same = [t for t in humans if t.body == payload.get("body")]
    return same[-1] if same else (humans[-1] if humans else None)


def decision_key(turn: Turn) -> str | None:
    """approval, conditional, rejection, ... or None when no decision was read."""
    decision = turn.data.get("decision")
    if decision is None and turn.kind == "acknowledgement":
        return "acknowledgement"
    if decision == "approval" and turn.data.get("conditions"):
        return "conditional"
    return str(decision) if decision else None


def recorded_as(turn: Turn) -> str:
    """``APPROVAL WITH CONDITIONS``, ``REJECTION``, ... or ``a reply (no decision)``."""
    key = decision_key(turn)
    if key is None:
        return "a reply (no decision)"
    return _RECORDED_AS.get(key, ("", f"your {key}"))[1].removeprefix("your ")


def _closed_before(turns: list[Turn], turn: Turn, tz: ZoneInfo) -> str:
    for earlier in reversed([t for t in turns if t.seq < turn.seq]):
        if earlier.kind == "status_changed" and earlier.data.get("to_status") == "closed":
            how = "withdrawn by the agent" if "withdrawn" in earlier.body else "closed"
            return f"This request was {how} on {when.local(earlier.at, tz)}. {LATE_REPLY_NOTICE}"
        if earlier.kind == "status_changed":
            return ""
    return ""


def _standing(turns: list[Turn], turn: Turn, tz: ZoneInfo, decided: str | None) -> str:
    previous = [
        t
        for t in turns
        if t.author == "human" and t.seq < turn.seq and t.data.get("decision") in _ON_RECORD
    ]
    if not previous:
        return "" if decided else "No decision is on record yet."
    last = previous[-1]
    key = decision_key(last) or "approval"
    label = _RECORDED_AS.get(key, ("", "a decision"))[1].removeprefix("your ")
    who = "your" if last.data.get("from") == turn.data.get("from") else f"{last.data.get('from')}'s"
    at = when.local(last.at, tz)
    if decided:
        return f"It follows {who} {label} of {at} on the record; nothing is overwritten."
    return f"The decision on record is still {who} {label} of {at}."


def _policy_effect(payload: dict[str, Any]) -> str:
    """What a vote did under an approval policy that needs more than this one answer."""
    tally = str(payload.get("tally") or "")
    if not tally:
        return ""
    if tally.startswith("not counted:"):
        return (
            "Your answer is recorded and the agent sees it, but it does not count towards "
            f"the request's approval policy: {tally.removeprefix('not counted: ')}."
        )
    if tally.startswith("outcome:"):
        return (
            f"Under the request's approval policy, the {tally}. The agent is told the "
            "outcome, not a single vote."
        )
    return (
        f"Your vote is counted; the agent is told only once the policy is met or can no "
        f"longer be met. {tally[0].upper()}{tally[1:]}."
    )


def receipt_view(
    request: Request, turns: list[Turn], payload: dict[str, Any], tz: ZoneInfo
) -> dict[str, Any]:
    turn = _this_turn(turns, payload)
    view: dict[str, Any] = {
        "headline": "Your reply was recorded",
        "recorded_as": "your reply",
        "target": None,
        "target_is_action": False,
        "conditions": [],
        "why": "",
        "standing": "",
        "effect": "",
        "attachments": [],
        "late": "",
        "unsettled": False,
        "kind": "reply",
        "tally": str(payload.get("tally") or ""),
    }
    if turn is None:
        return view
    key = decision_key(turn)
    view["kind"] = turn.kind.replace("_", " ")
    view["late"] = _closed_before(turns, turn, tz) or (
        LATE_REPLY_NOTICE if turn.data.get("late") else ""
    )
    view["attachments"] = [
        {
            "name": str(a.get("name", "attachment")),
            "size": human_size(int(a.get("size", 0))),
            "sha": str(a.get("sha256", ""))[:12],
            "stored": a.get("stored", True) is not False,
        }
        for a in turn.data.get("attachments") or []
    ]
    view["standing"] = _standing(turns, turn, tz, key)
    if key is None:
        view["headline"] = "No decision was read from your reply"
        view["recorded_as"] = "your reply (no decision)"
        words = turn.data.get("decision_words")
        view["why"] = (
            f"it has words for more than one decision, or a negated one ({words})."
            if turn.data.get("decision_unclear")
            else "it does not start with APPROVE, REJECT, QUESTION, DECLINE or I'M ON IT."
        ) + " The agent sees only your text."
        view["unsettled"] = True
        return view
    view["headline"], view["recorded_as"] = _RECORDED_AS.get(key, (f"Recorded: {key}", key))
    view["effect"] = "" if view["late"] else _policy_effect(payload) or _EFFECT.get(key, "")
    view["conditions"] = [str(c) for c in turn.data.get("conditions") or []]
    if key in ("approval", "conditional", "rejection"):
        action = request.fields.get("proposed_action")
        view["target"] = str(action or request.fields.get("request", ""))
        view["target_is_action"] = bool(action)
    return view
