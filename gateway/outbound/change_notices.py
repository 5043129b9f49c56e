"""What a change notice says to the lawyers on a thread, so nobody works on a settled request.

A withdrawal, an ops close and a passed deadline are mailed to the thread's
lawyers; counsel hears that a request was escalated; the others hear when
one human has answered. These emails need no answer, and say so.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from gateway.i18n import _
from gateway.outbound import when
from gateway.outbound.group import outcome_word
from gateway.store.models import Request


def notice_view(
    purpose: str,
    request: Request,
    payload: dict[str, Any],
    tz: ZoneInfo,
    g: dict[str, Any] | None = None,
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
        # The request is still open and waits for this lawyer's answer too.
        "open": False,
    }
    if purpose == "closed":
        by = str(payload.get("by", "ops")).removeprefix("ops:")
        view["tag"] = _("closed, no answer needed")
        view["headline"] = _("Closed: no answer is needed")
        view["text"] = _(
            "This request was closed by %(by)s (operations). No answer is needed; if you "
            "reply anyway, your reply is kept on the record but not acted on."
        ) % {"by": by}
        view["reason"] = str(payload.get("reason") or "") or None
    elif purpose == "reassigned":
        to, by = str(payload.get("to", "")), str(payload.get("by", "ops")).removeprefix("ops:")
        view["tag"] = _("reassigned, no answer needed")
        view["headline"] = _("Reassigned to %(to)s: no answer is needed from you") % {"to": to}
        view["text"] = _(
            "This request was reassigned to %(to)s by %(by)s (operations). No answer is "
            "needed from you; if you reply anyway, your reply is kept on the record but no "
            "longer counts."
        ) % {"to": to, "by": by}
        view["reason"] = str(payload.get("reason") or "") or None
    elif purpose == "deadline_passed":
        _deadline_passed(view, request, payload, tz)
        _deadline_with_votes(view, payload, g)
    elif purpose == "escalated_notice":
        view.update(_escalated_view(payload))
    elif purpose == "late_objection":
        view.update(_objection_view(payload, tz))
    elif purpose == "delegation":
        view.update(_delegation_view(payload))
    elif purpose == "approver_away" or (purpose == "answered_by_other" and payload.get("outcome")):
        view.update(_policy_view(purpose, payload, g))
    elif purpose == "answered_by_other":
        who = str(payload.get("who") or _("another lawyer"))
        label = str(payload.get("decision_label") or "")
        # Stored in English when queued; a label the catalogue knows reads in this language.
        label = _(label) if label else ""
        view["tag"] = _("answered by someone else")
        view["headline"] = _("Answered by %(who)s") % {"who": who}
        view["who"] = who
        view["decision_label"] = label
        view["other_text"] = str(payload.get("body") or "")
        view["text"] = _(
            "%(who)s has answered this request (%(what)s), and the agent has been told. You "
            "do not need to answer; if you reply, your reply is recorded as well and the "
            "agent is told of it too."
        ) % {"who": who, "what": label or _("a reply")}
    return view


def _deadline_with_votes(
    view: dict[str, Any], payload: dict[str, Any], g: dict[str, Any] | None
) -> None:
    """Votes are in: "no human has answered" would be false, and only a lawyer the
    policy still waits for is asked to answer."""
    if g is None or not g["votes"] or payload.get("closes"):
        return
    view["open"] = bool(g["awaits_me"])
    passed = _(
        "The deadline passed before the approvers' votes decided this request, and "
        "the agent has been told. The request is still open."
    )
    view["text"] = f"{passed} " + (
        _("Your answer is still needed.")
        if view["open"]
        else _("Your answer is on the record; nothing more is needed from you.")
    )


def _escalated_view(payload: dict[str, Any]) -> dict[str, Any]:
    to = ", ".join(str(a) for a in payload.get("to") or []) or _("the escalation contact")
    # The request is still open and this lawyer may still answer: the email keeps the
    # buttons and says so, and never says that no answer is needed.
    text = _(
        "This request had no answer after %(reminders)s reminder(s), so it was also "
        "sent to %(to)s. It is still open and your answer is still wanted: whoever "
        "answers first is recorded and the others are told."
    ) % {"reminders": payload.get("reminders", "?"), "to": to}
    return {
        "tag": _("escalated"),
        "headline": _("Escalated to %(to)s") % {"to": to},
        "text": text,
        "open": True,
    }


def _deadline_passed(
    view: dict[str, Any], request: Request, payload: dict[str, Any], tz: ZoneInfo
) -> None:
    raw = request.fields.get("deadline")
    on = when.date_only(raw)
    if on is not None:
        deadline = when.day(on)
    elif request.deadline_at:
        deadline = when.local(request.deadline_at, tz)
    else:
        deadline = _("the deadline")
    closes = bool(payload.get("closes"))
    view["tag"] = _("deadline passed")
    if closes:
        view["headline"] = _("The deadline passed without an answer: the request is closed")
        view["text"] = _(
            "The deadline (%(when)s) passed and no human has answered. The request is "
            "closed; no answer is needed, and a reply is kept on the record but not acted on."
        ) % {"when": deadline}
        return
    view["headline"] = _("The deadline passed without an answer")
    view["text"] = _(
        "The deadline (%(when)s) passed and no human has answered, and the agent has been "
        "told. The request is still open and your answer is still wanted."
    ) % {"when": deadline}
    view["open"] = True


def _policy_view(purpose: str, payload: dict[str, Any], g: dict[str, Any] | None) -> dict[str, Any]:
    """An approver away, or an approval policy's outcome reached: what the others read."""
    view: dict[str, Any] = {}
    if purpose == "approver_away":
        who = str(payload.get("who") or _("an approver"))
        view["tag"] = _("an approver is away")
        view["headline"] = _("%(who)s is away") % {"who": who}
        away = _(
            "%(who)s sent an out-of-office reply and has no delegate, so their answer may not come."
        ) % {"who": who}
        # Only a lawyer the policy still waits for is asked; the others are told, no more.
        waits = g is None or bool(g.get("awaits_me"))
        view["open"] = waits
        view["text"] = (
            away
            + " "
            + (
                _("Your answer is still needed.")
                if waits
                else _("Your answer is on the record; nothing more is needed from you.")
            )
        )
        return view
    outcome = payload["outcome"]
    said = outcome_word(str(outcome.get("outcome", "")))
    label = str(payload.get("decision_label") or "")
    view["tag"] = _("decided, no answer needed")
    view["headline"] = _("Decided: %(outcome)s") % {"outcome": said}
    view["who"] = str(payload.get("who") or _("another lawyer"))
    # Stored in English when queued; a label the catalogue knows reads in this language.
    view["decision_label"] = _(label) if label else ""
    view["other_text"] = str(payload["body"]) if payload.get("body") else None
    view["text"] = _(
        "The approvers' votes have decided this request: the outcome is %(outcome)s, and "
        "the agent has been told."
    ) % {"outcome": said}
    if outcome.get("conflict"):
        view["text"] += " " + _("The votes conflict; all of them are on the record.")
    view["text"] += " " + _(
        "You do not need to answer; if you reply, your reply is recorded as well."
    )
    return view


def _objection_view(payload: dict[str, Any], tz: ZoneInfo) -> dict[str, Any]:
    """A vote against the outcome, cast after it was reached: an alarm to everyone."""
    who = str(payload.get("who") or _("another lawyer"))
    outcome = payload.get("outcome") or {}
    said = outcome_word(str(outcome.get("outcome", "")))
    label = str(payload.get("decision_label") or "")
    return {
        "tag": _("objection after the outcome"),
        "headline": _("%(who)s objects: the outcome %(outcome)s stands")
        % {"who": who, "outcome": said},
        "who": who,
        "decision_label": _(label) if label else "",
        "other_text": str(payload.get("body") or ""),
        "text": _(
            "%(who)s answered %(what)s on %(when)s, after the outcome %(outcome)s was "
            "reached. Under the approval rule the outcome stands, and the agent may already "
            "have acted on it; the agent has been told of the objection, with the words "
            "below. If the objection must stop the action, tell the agent's operator now."
        )
        % {
            "who": who,
            "what": _(label) if label else _("a reply"),
            "when": when.local_iso(payload.get("at"), tz),
            "outcome": said,
        },
    }


def _refusals() -> dict[str, str]:
    """Why a DELEGATE reply handed nothing on, one sentence each (``inbound.delegation``)."""
    return {
        "no_address": _(
            "No colleague's address was found in your reply, so the request was not handed "
            "on; type one address under the prompt."
        ),
        "several": _(
            "Your reply names more than one address, so the request was not handed on; name "
            "one colleague."
        ),
        "decided": _("The request is already decided or closed, so it was not handed on."),
        "loop_self": _(
            "You answer this request for %(who)s as their delegate, so you cannot hand it on again."
        ),
        "loop_other": _(
            "%(to)s already answers this request for %(who)s, so it was not handed to them: "
            "a delegation never goes round in a loop."
        ),
        "voted": _("Your vote is already on the record, so the request was not handed on."),
        "approver": _(
            "%(to)s is already asked on this request; handing your vote to them would count "
            "one person twice."
        ),
        "unknown": _(
            "%(to)s is not a lawyer this gateway knows, so the request was not handed on."
        ),
    }


def _delegation_view(payload: dict[str, Any]) -> dict[str, Any]:
    """A DELEGATE reply: handed on to a colleague, or why not."""
    values = {"to": str(payload.get("to") or ""), "who": str(payload.get("who") or "")}
    refused = str(payload.get("refused") or "")
    if refused:
        return {
            "tag": _("not handed on"),
            "headline": _("Not handed on"),
            "text": _refusals().get(refused, refused) % values,
            "open": True,
        }
    return {
        "tag": _("handed on"),
        "headline": _("Handed on to %(to)s") % values,
        "text": _(
            "You handed this request to %(to)s. Their answer counts as yours, once, and you "
            "are not reminded again; if you answer yourself first, your answer counts instead."
        )
        % values,
    }
