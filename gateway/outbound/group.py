"""The approvers of a request, told as one group: the rule, the tally, the outcome.

Every email to an approver of a request that several people decide says, in
the lawyer's language, what the rule is ("You are one of 3 approvers. 2
approvals are needed; one rejection stops it."), who else was asked, how the
votes stand now, and, once decided, the outcome with every vote, every
condition that binds and any objection that came after it. The sentences are
composed here from translated parts: the stored rule (``2 of legal veto``) is
never shown to a lawyer.

Everything is read from the request's policy row as it stands when the email is
written (``GroupState``): each email shows the tally live.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from babel.dates import format_timedelta

from gateway import i18n
from gateway import policy as rules
from gateway.i18n import _, ngettext
from gateway.outbound import when


@dataclass(frozen=True)
class GroupState:
    """A request's policy row as read for an email: plain values, so it travels to the
    composing process with the rest of the thread."""

    rule: dict[str, Any]
    state: dict[str, Any]
    outcome: str = rules.PENDING
    decided_at: datetime | None = None
    delegates: dict[str, str] = field(default_factory=dict)

    @property
    def policy(self) -> rules.Policy:
        return rules.from_json(self.rule)

    @property
    def several(self) -> bool:
        """More than one person decides: the only case where a group is told anything."""
        return len(self.policy.approvers) > 1

    @property
    def decided(self) -> bool:
        return self.outcome != rules.PENDING

    def person_of(self, address: str) -> str:
        """The approver an address answers for (a delegate answers for their approver)."""
        address = address.strip().lower()
        return str(self.delegates.get(address, address))

    def vote_of(self, address: str) -> tuple[str, dict[str, Any]] | None:
        """(``approve`` | ``reject``, the vote as shown to agents) of this person, if any."""
        person = self.person_of(address)
        for decision, key in ((rules.APPROVE, "approvals"), (rules.REJECT, "rejections")):
            for vote in self.state.get(key) or ():
                if str(vote.get("who")) == person:
                    return decision, dict(vote)
        return None

    def awaits(self, address: str) -> bool:
        """The policy is pending and still waits for this person's vote."""
        person = self.person_of(address)
        return not self.decided and person in (self.state.get("waiting_for") or ())

    def decided_before(self, at: datetime) -> bool:
        """The outcome was reached before ``at``: nothing said then can change it."""
        return self.decided_at is not None and _aware(self.decided_at) < _aware(at)

    def counted(self, vote: dict[str, Any]) -> bool:
        """The vote was cast by the time the outcome was reached (it made the outcome)."""
        if self.decided_at is None:
            return True
        try:
            at = datetime.fromisoformat(str(vote.get("at")))
        except ValueError:
            return True
        return _aware(at) <= _aware(self.decided_at)


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _names(addresses: list[str] | tuple[str, ...]) -> str:
    return ", ".join(addresses)


def _span(seconds: float) -> str:
    return format_timedelta(
        timedelta(seconds=seconds), threshold=1.0, locale=i18n.locale(), format="long"
    )


def _group_need(group: rules.Group) -> str:
    """ "2 approvals from a@x, b@x, c@x" or "an approval from every one of a@x, b@x"."""
    members = _names(group.members)
    if group.need is None:
        return _("an approval from every one of %(members)s") % {"members": members}
    return ngettext(
        "%(n)s approval from %(members)s", "%(n)s approvals from %(members)s", group.need
    ) % {"n": group.need, "members": members}


def _veto_sentence(veto: bool) -> str:
    if veto:
        return _("One rejection stops it.")
    return _(
        "A rejection counts against it: it is rejected once the approvals needed can no longer be reached."
    )


def rule_sentences(policy: rules.Policy, address: str) -> list[str]:
    """The rule in the lawyer's language, as this lawyer stands in it."""
    person = address.strip().lower()
    approvers = policy.approvers
    sentences: list[str] = []
    if person in approvers:
        sentences.append(
            ngettext(
                "You are one of %(n)s approvers.", "You are one of %(n)s approvers.", len(approvers)
            )
            % {"n": len(approvers)}
        )
    else:
        sentences.append(
            ngettext(
                "%(n)s approver decides this request.",
                "%(n)s approvers decide this request.",
                len(approvers),
            )
            % {"n": len(approvers)}
        )
    simple = len(policy.steps) == 1 and len(policy.steps[0].groups) == 1
    if simple:
        step = policy.steps[0]
        group = step.groups[0]
        if group.need is None:
            need = _("Every one of them must approve.")
        elif group.need == 1:
            need = _("One approval is enough.")
        else:
            need = ngettext(
                "%(n)s approval is needed.", "%(n)s approvals are needed.", group.need
            ) % {"n": group.need}
        if step.within is not None:
            need += " " + _("They have %(time)s.") % {"time": _span(step.within)}
        sentences.append(need)
    else:
        for number, step in enumerate(policy.steps, 1):
            needs = "; ".join(_group_need(g) for g in step.groups)
            line = _("Step %(step)s of %(steps)s: %(needs)s") % {
                "step": number,
                "steps": len(policy.steps),
                "needs": needs,
            }
            if step.within is not None:
                line += " " + _("(within %(time)s)") % {"time": _span(step.within)}
            sentences.append(line + ".")
    sentences.append(_veto_sentence(policy.veto))
    others = [a for a in approvers if a != person]
    if others:
        sentences.append(_("Also asked: %(names)s.") % {"names": _names(others)})
    return sentences


def _vote_line(vote: dict[str, Any], decision: str, tz: ZoneInfo) -> dict[str, Any]:
    said = _("approved") if decision == rules.APPROVE else _("rejected")
    at = when.local_iso(vote.get("at"), tz)
    by = str(vote.get("by") or "")
    who = str(vote.get("who") or "")
    if by:
        who = _("%(who)s (answered by %(by)s)") % {"who": who, "by": by}
    return {
        "who": who,
        "said": said.upper(),
        "at": at,
        "approve": decision == rules.APPROVE,
        "conditions": [str(c) for c in vote.get("conditions") or ()],
    }


def _votes(group: GroupState, tz: ZoneInfo) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(votes that made the outcome or stand while it is pending, votes after the outcome)."""
    counted: list[dict[str, Any]] = []
    later: list[dict[str, Any]] = []
    for decision, key in ((rules.APPROVE, "approvals"), (rules.REJECT, "rejections")):
        for vote in group.state.get(key) or ():
            line = _vote_line(dict(vote), decision, tz)
            line["sort"] = str(vote.get("at"))
            (counted if group.counted(dict(vote)) else later).append(line)
    counted.sort(key=lambda v: str(v["sort"]))
    later.sort(key=lambda v: str(v["sort"]))
    return counted, later


def _mine(group: GroupState, address: str) -> str:
    """What this lawyer's own vote came to, in one sentence ("" when they did not vote)."""
    found = group.vote_of(address)
    if found is None:
        return ""
    decision, vote = found
    if not group.decided:
        return (
            _("Your approval is counted; you can still change it until the outcome is reached.")
            if decision == rules.APPROVE
            else _("Your rejection is counted.")
        )
    approved = group.outcome.startswith(rules.APPROVED)
    agrees = approved == (decision == rules.APPROVE)
    if group.counted(vote):
        if decision == rules.APPROVE:
            return _("Your approval counted.") if agrees else _("Your approval is on the record.")
        return _("Your rejection counted.") if agrees else _("Your rejection is on the record.")
    if agrees:
        return _("Your vote came after the outcome and agrees with it.")
    return _(
        "Your vote came after the outcome was reached and does not change it; every "
        "approver and the agent have been told of it."
    )


def group_view(
    group: GroupState | None, address: str, tz: ZoneInfo, *, held: bool = False
) -> dict[str, Any] | None:
    """The ``g`` variables of the templates' group block (None: nobody else decides).

    ``held``: this lawyer's answer waits out its correction window; it is not counted
    yet, and they are not listed among those still awaited.
    """
    if group is None or not group.several:
        return None
    policy = group.policy
    counted, later = _votes(group, tz)
    outcome = group.outcome
    waiting = [str(w) for w in group.state.get("waiting_for") or ()] if not group.decided else []
    mine = _mine(group, address)
    # Whom the others still wait for, once there is a tally: not the reader (their own
    # line says where they stand), and not before anyone voted (the rule names them).
    waiting = [w for w in waiting if w != group.person_of(address)] if counted or held else []
    if held and not group.decided:
        mine = _("Your answer counts when its correction window ends.")
    elif counted and not mine and group.awaits(address):
        mine = _("Your answer is still needed.")
    conditions = [str(c) for c in group.state.get("conditions") or ()]
    return {
        "rule": " ".join(rule_sentences(policy, address)),
        "decided": group.decided,
        "outcome": outcome_word(outcome) if group.decided else "",
        "headline": _("Decided: %(outcome)s") % {"outcome": outcome_word(outcome)}
        if group.decided
        else "",
        "votes": counted,
        "later": later,
        "waiting": _names(waiting),
        "conditions": conditions,
        "mine": mine,
        "awaits_me": group.awaits(address),
        # The DELEGATE link, when this lawyer may hand the request on (set by the view).
        "delegate_url": "",
    }


def outcome_word(outcome: str) -> str:
    """A policy's outcome as the lawyer reads it, in capitals like the decision words."""
    words = {
        "approved": _("approved"),
        "approved_with_conditions": _("approved with conditions"),
        "rejected": _("rejected"),
        "expired": _("expired"),
        "pending": _("pending"),
    }
    return words.get(outcome, outcome.replace("_", " ")).upper()


def after_outcome(group: GroupState, key: str | None, pending: bool) -> str:
    """What a decision that came after the policy's outcome does: nothing to the outcome.

    A rejection after an approval (or the reverse) is an objection: it is on the record,
    and every approver and the agent are told of it, but the outcome stands.
    """
    said = {"outcome": outcome_word(group.outcome)}
    approved = group.outcome.startswith("approved")
    disagrees = (key == "rejection" and approved) or (
        key in ("approval", "conditional") and not approved
    )
    if not disagrees:
        return (
            _(
                "The outcome (%(outcome)s) was reached before your reply; your answer is on the "
                "record and changes nothing."
            )
            % said
        )
    if pending:
        return (
            _(
                "The outcome (%(outcome)s) was reached before your reply and stands: your vote "
                "cannot change it. When the window ends, your objection is recorded and every "
                "approver and the agent are told of it, with your words."
            )
            % said
        )
    return (
        _(
            "The outcome (%(outcome)s) was reached before your reply and stands: your vote "
            "cannot change it. Your objection is recorded, and every approver and the agent "
            "have been told of it, with your words."
        )
        % said
    )
