"""A receipt restates what was recorded, so the lawyer can check it against what they meant.

"You REJECTED: <the proposed action>", the conditions as a list, the
attachments received (name, size, sha256 prefix) and, when no decision was
read, why not and which decision on record still stands. A reply to a
request that was already withdrawn or closed says it was kept, not acted on.
Everything is read from the thread itself, as recorded.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from gateway import options
from gateway.i18n import _
from gateway.outbound import when
from gateway.outbound.group import GroupState, after_outcome, outcome_word
from gateway.store.models import Request, Turn


def _recorded_as(key: str) -> tuple[str, str]:
    """(headline, label) of a decision, in the language of the email being written."""
    return {
        "approval": (_("You APPROVED"), _("your APPROVAL")),
        "conditional": (_("You APPROVED, with conditions"), _("your APPROVAL WITH CONDITIONS")),
        "rejection": (_("You REJECTED"), _("your REJECTION")),
        "decline": (_("You DECLINED this request"), _("your DECLINE")),
        "question": (_("You asked a QUESTION"), _("your QUESTION")),
        "acknowledgement": (_("You said I'M ON IT"), _("your I'M ON IT")),
        "close": (_("You CLOSED this request"), _("your CLOSE")),
    }.get(key, (_("Recorded: %(what)s") % {"what": key}, key))


def decision_label(key: str) -> str:
    """``APPROVAL``, ``APPROVAL WITH CONDITIONS``, ...: a decision (:func:`reading_key`)
    without "your", as every email to a lawyer names it."""
    return {
        "approval": _("APPROVAL"),
        "conditional": _("APPROVAL WITH CONDITIONS"),
        "rejection": _("REJECTION"),
        "decline": _("DECLINE"),
        "question": _("QUESTION"),
        "acknowledgement": _("I'M ON IT"),
        "close": _("CLOSE"),
    }.get(key, key)


def _effect(key: str) -> str:
    return {
        # The same story as the push the agent gets: what the lawyer decided, in words.
        "approval": _("The agent is told that you approved the proposed action."),
        "conditional": _(
            "The agent is told that you approved the proposed action only within these conditions."
        ),
        "rejection": _("The agent is told that you rejected the proposed action."),
        "decline": _("The agent is told you will not take this request on."),
        "question": _(
            "The agent is asked to answer your question; the request stays open and "
            "waits for your decision."
        ),
        "acknowledgement": _(
            "The request is marked as read (reviewed) and reminders pause. Reply "
            "APPROVE, REJECT, QUESTION or DECLINE when you are ready."
        ),
        "close": _("The request is closed."),
    }.get(key, "")


# Decisions about the proposed action; a question or an I'M ON IT decides nothing.
_ON_RECORD = ("approval", "rejection", "decline", "close")


def late_notice() -> str:
    """The contract's LATE_REPLY_NOTICE, in the language of the email being written."""
    return _(
        "This reply arrived after the request was closed (withdrawn, or closed without an "
        "answer). It is kept on the record; it does not reopen or answer the request."
    )


def human_size(size: int) -> str:
    if size < 1024:
        return _("%(n)s bytes") % {"n": size}
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
    """approval, conditional, rejection, ... or None when no decision was read.

    A reading held for its correction window counts as what was read. The turn's
    reading (``replies.Reading``) says it; turns recorded before it was kept are read
    from their flat fields.
    """
    reading = turn.data.get("reading")
    if isinstance(reading, dict) and reading.get("kind"):
        return reading_key(str(reading["kind"]))
    decision = turn.data.get("decision") or (turn.data.get("pending") or {}).get("read_as")
    if decision is None and turn.kind == "acknowledgement":
        return "acknowledgement"
    if decision == "approval" and turn.data.get("conditions"):
        return "conditional"
    return str(decision) if decision else None


def reading_key(kind: str) -> str | None:
    """The receipt's name for a reading's kind: None for a reply that decides nothing."""
    if kind in ("reply", "no_answer"):
        return None
    return "conditional" if kind == "conditional_approval" else kind


def recorded_as(turn: Turn) -> str:
    """``APPROVAL WITH CONDITIONS``, ``REJECTION``, ... or ``a reply (no decision)``."""
    key = decision_key(turn)
    if key is None:
        return _("a reply (no decision)")
    return decision_label(key)


def _closed_before(turns: list[Turn], turn: Turn, tz: ZoneInfo) -> str:
    for earlier in reversed([t for t in turns if t.seq < turn.seq]):
        if earlier.kind == "status_changed" and earlier.data.get("to_status") == "closed":
            at = when.local(earlier.at, tz)
            how = (
                _("This request was withdrawn by the agent on %(when)s.")
                if "withdrawn" in earlier.body
                else _("This request was closed on %(when)s.")
            )
            return f"{how % {'when': at}} {late_notice()}"
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
        return "" if decided else _("No decision is on record yet.")
    last = previous[-1]
    said = {
        "what": decision_label(decision_key(last) or "approval"),
        "when": when.local(last.at, tz),
    }
    if last.data.get("from") == turn.data.get("from"):
        if decided:
            return (
                _("It follows your %(what)s of %(when)s on the record; nothing is overwritten.")
                % said
            )
        return _("The decision on record is still your %(what)s of %(when)s.") % said
    said["who"] = str(last.data.get("from"))
    if decided:
        return (
            _(
                "It follows the %(what)s of %(who)s of %(when)s on the record; nothing is "
                "overwritten."
            )
            % said
        )
    return _("The decision on record is still the %(what)s of %(who)s of %(when)s.") % said


def _policy_effect(payload: dict[str, Any]) -> str:
    """What a vote did under an approval policy that needs more than this one answer."""
    parts = payload.get("tally_parts") or {}
    if parts.get("kind") == "not_counted":
        return _(
            "Your answer is recorded and the agent sees it, but it does not count towards "
            "the request's approval policy: you are not an approver under its rule (%(rule)s)."
        ) % {"rule": parts.get("rule", "")}
    if parts.get("kind") == "outcome":
        text = _(
            "Under the request's approval policy, the outcome is: %(outcome)s. The agent is "
            "told the outcome, not a single vote."
        ) % {"outcome": outcome_word(str(parts.get("outcome", "")))}
        if parts.get("conflict"):
            text += " " + _("The votes conflict; all of them are on the record.")
        return text
    if parts.get("kind") == "count":
        # Where the votes stand is the group block's, shown live below with every name.
        return _(
            "Your vote is counted; the agent is told only once the policy is met or can no "
            "longer be met."
        )
    return ""


def receipt_view(
    request: Request,
    turns: list[Turn],
    payload: dict[str, Any],
    tz: ZoneInfo,
    group: GroupState | None = None,
) -> dict[str, Any]:
    turn = _this_turn(turns, payload)
    view: dict[str, Any] = {
        "headline": _("Your reply was recorded"),
        "recorded_as": _("your reply"),
        # The decision without "your", for a subject that needs the room for the ask.
        "label": "",
        "target": None,
        "target_is_action": False,
        "conditions": [],
        "why": "",
        "standing": "",
        "effect": "",
        "attachments": [],
        "late": "",
        "unsettled": False,
        # The outcome was reached before this reply: no answer now can change it.
        "after_outcome": False,
        "kind": "reply",
        "reading": None,
    }
    if turn is None:
        return view
    key = decision_key(turn)
    view["kind"] = turn.kind.replace("_", " ")
    view["late"] = _closed_before(turns, turn, tz) or (
        late_notice() if turn.data.get("late") else ""
    )
    view["attachments"] = [
        {
            "name": str(a.get("name") or _("attachment")),
            "size": human_size(int(a.get("size", 0))),
            "sha": str(a.get("sha256", ""))[:12],
            "stored": a.get("stored", True) is not False,
        }
        for a in turn.data.get("attachments") or []
    ]
    view["standing"] = _standing(turns, turn, tz, key)
    view["reading"] = reading_view(turn, payload, tz, key)
    view["after_outcome"] = group is not None and group.decided_before(turn.at)
    picked = turn.data.get("choice") or (turn.data.get("pending") or {}).get("choice")
    if key is None and isinstance(picked, str):
        return _chose(view, request, turn, picked, tz)
    if key is None:
        view["headline"] = _("No decision was read from your reply")
        view["recorded_as"] = _("your reply (no decision)")
        view["why"] = _why_none(turn)
        view["unsettled"] = True
        return view
    view["headline"], view["recorded_as"] = _recorded_as(key)
    view["label"] = decision_label(key)
    view["effect"] = (
        ""
        if view["late"] or view["reading"]["pending"]
        else _policy_effect(payload) or _effect(key)
    )
    if view["after_outcome"] and group is not None and not view["late"]:
        told = after_outcome(group, key, view["reading"]["pending"])
        view["effect"], view["reading"]["then"] = told, told
    view["conditions"] = [str(c) for c in turn.data.get("conditions") or []]
    if key in ("approval", "conditional", "rejection"):
        action = request.fields.get("proposed_action")
        view["target"] = str(action or request.fields.get("request", ""))
        view["target_is_action"] = bool(action)
    return view


def _chose(
    view: dict[str, Any], request: Request, turn: Turn, picked: str, tz: ZoneInfo
) -> dict[str, Any]:
    """The receipt of a reply that picked one of the agent's choices."""
    choices = options.shape_of(request.fields).choices
    letter = options.letter(choices.index(picked)) if picked in choices else "?"
    view["headline"] = _("You chose %(letter)s: %(choice)s") % {"letter": letter, "choice": picked}
    view["recorded_as"] = _("your choice")
    due = (turn.data.get("pending") or {}).get("takes_effect_at")
    if due:
        view["effect"] = _(
            "NOT IN EFFECT YET. It takes effect on %(when)s unless you correct it before then "
            "with a button below or a new reply; until then the agent is told the request is "
            "still waiting."
        ) % {"when": _to_the_second(str(due), tz)}
        # The buttons stay, to pick another choice inside the window.
        view["unsettled"] = True
    return view


def _why_none(turn: Turn) -> str:
    if turn.data.get("no_answer"):
        return _(
            "it has no new text of yours, only a greeting, thanks or a signature. Nothing "
            "changes: the request still waits for your answer, and its reminders go on."
        )
    # The lawyer's own words that left it undecided, as the reader quoted them.
    words = turn.data.get("because") or turn.data.get("decision_words")
    why = (
        _(
            'what you wrote ("%(words)s") does not plainly approve or reject the proposed '
            "action: it defers it, holds part of it back, asks about it, takes it back, or "
            "has words for more than one decision."
        )
        % {"words": words}
        if turn.data.get("decision_unclear")
        else _(
            "no sentence in it approves, rejects or declines the proposed action (a yes or "
            "no alone answers the question, not the action)."
        )
        # The parenthesis only where the reply was a bare yes or no.
        if turn.data.get("answer")
        else _("no sentence in it approves, rejects or declines the proposed action.")
    )
    # Marked outside the f-string: the message extractor does not look inside one.
    sees = _("The agent sees only your text.")
    return f"{why} {sees}"


def _rule(read_from: str, key: str | None) -> str:
    """The rule each kind of reading follows, as the receipt names it."""
    if read_from == "phrase" and key == "acknowledgement":
        # "I'll look at it tomorrow" decides nothing: it says an answer is to come.
        return _("a promise to answer later, which decides nothing")
    return {
        "quick_reply": _("the keyword of the answer link you used"),
        "keyword": _("a decision word"),
        "phrase": _("a statement that decides"),
        "yes_no": _("a yes or no to whether to carry out the proposed action"),
    }.get(read_from, _("the words that decided it"))


def reading_view(
    turn: Turn, payload: dict[str, Any], tz: ZoneInfo, key: str | None
) -> dict[str, Any]:
    """Where the decision came from and when it takes effect (``_reading`` templates)."""
    pending = turn.data.get("pending") or {}
    due = pending.get("takes_effect_at")
    read_from = turn.data.get("read_from")
    return {
        "decided": key is not None,
        # The block cut as the lawyer's signature, so a wrong cut is seen and corrected.
        "signature": [str(line) for line in turn.data.get("signature") or []][:12],
        "exceeds": str((turn.data.get("reading") or {}).get("exceeds") or ""),
        "because": str(turn.data.get("because") or ""),
        "rule": _rule(str(read_from), key),
        "at_once": read_from == "quick_reply" and not due,
        "pending": bool(due),
        "takes_effect": _to_the_second(due, tz) if due else "",
        "then": _effect(key or ""),
        "replaced": [
            _("%(what)s of %(when)s")
            % {
                "what": _yours(str(r.get("decision") or "")),
                "when": _to_the_second(str(r["at"]), tz),
            }
            for r in payload.get("replaced") or []
        ],
    }


def _to_the_second(at: str, tz: ZoneInfo) -> str:
    """``Wed 2 Dec 2026, 09:14:05 UTC``: a window of minutes needs its seconds."""
    return when.local(datetime.fromisoformat(at), tz, seconds=True)


def _yours(decision: str) -> str:
    """``your APPROVAL``: a decision as the receipt names it."""
    return _recorded_as(decision)[1] if decision else _("your reading")
