"""Telling every lawyer on a thread what changed, so nobody works on a settled request.

A withdrawal, an ops close and a passed deadline are mailed to the thread's
lawyers; counsel hears that a request was escalated; the others hear when
one human has answered. These emails need no answer, and say so.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from gateway.outbound import when
from gateway.store.models import Request


def notice_view(
    purpose: str, request: Request, payload: dict[str, Any], tz: ZoneInfo
) -> dict[str, Any]:
    """The ``n`` variables of templates/email/notice.*."""
    view: dict[str, Any] = {
        "tag": purpose.replace("_", " "),
        "headline": "",
        "text": "",
        "other_text": None,
        "who": "",
        "decision_label": "",
        "reason": None,
        "reason_by_agent": False,
    }
    if purpose == "closed":
        by = str(payload.get("by", "ops"))
        view["tag"] = "closed, no answer needed"
        view["headline"] = "Closed: no answer is needed"
        view["text"] = (
            f"This request was closed by {by.removeprefix('ops:')} (operations). No answer is "
            "needed; if you reply anyway, your reply is kept on the record but not acted on."
        )
        view["reason"] = str(payload.get("reason") or "") or None
    elif purpose == "deadline_passed":
        deadline = when.local(request.deadline_at, tz) if request.deadline_at else "the deadline"
        closes = bool(payload.get("closes"))
        view["tag"] = "deadline passed"
        view["headline"] = (
            "The deadline passed without an answer: the request is closed"
            if closes
            else "The deadline passed without an answer"
        )
        view["text"] = f"The deadline ({deadline}) passed and no human has answered. " + (
            "The request is closed; no answer is needed, and a reply is kept on the record "
            "but not acted on."
            if closes
            else "The agent has been told. The request stays open: your answer is still "
            "recorded and sent to the agent if you reply."
        )
    elif purpose == "escalated_notice":
        to = ", ".join(str(a) for a in payload.get("to") or []) or "the escalation contact"
        view["tag"] = "escalated"
        view["headline"] = f"Escalated to {to}"
        view["text"] = (
            f"This request had no answer after {payload.get('reminders', 'several')} "
            f"reminder(s), so it was also sent to {to}. Whoever answers first is recorded "
            "and the others are told; you can still answer it."
        )
    elif purpose == "approver_away" or (purpose == "answered_by_other" and payload.get("outcome")):
        view.update(_policy_view(purpose, payload))
    elif purpose == "answered_by_other":
        who = str(payload.get("who") or "another lawyer")
        label = str(payload.get("decision_label") or "")
        view["tag"] = "answered by someone else"
        view["headline"] = f"Answered by {who}"
        view["who"] = who
        view["decision_label"] = label
        view["other_text"] = str(payload.get("body") or "")
        view["text"] = (
            f"{who} has answered this request{f' ({label})' if label else ''}, and the agent "
            "has been told. You do not need to answer; if you reply, your reply is recorded "
            "as well and the agent is told of it too."
        )
    return view


def _policy_view(purpose: str, payload: dict[str, Any]) -> dict[str, Any]:
    """An approver away, or an approval policy's outcome reached: what the others read."""
    view: dict[str, Any] = {}
    if purpose == "approver_away":
        who = str(payload.get("who") or "an approver")
        view["tag"] = "an approver is away"
        view["headline"] = f"{who} is away"
        view["text"] = (
            f"{who} sent an out-of-office reply and has no delegate, so their answer may not "
            "come. Your answer is still needed."
        )
        return view
    outcome = payload["outcome"]
    said = str(outcome.get("outcome", "")).replace("_", " ").upper()
    view["tag"] = "decided, no answer needed"
    view["headline"] = f"Decided: {said}"
    view["who"] = str(payload.get("who") or "another lawyer")
    view["decision_label"] = str(payload.get("decision_label") or "")
    view["other_text"] = str(payload.get("body") or "")
    conflict = (
        " The votes conflict; all of them are on the record." if outcome.get("conflict") else ""
    )
    view["text"] = (
        f"The approval policy ({outcome.get('rule', '')}) is met or can no longer be met: "
        f"the outcome is {said}, and the agent has been told.{conflict} You do not need to "
        "answer; if you reply, your reply is recorded as well."
    )
    return view
