"""The vote log of each request, and the lock that makes each outcome happen once.

Every vote takes the request's ``request_policies`` row with ``SELECT ... FOR
UPDATE`` (PostgreSQL; SQLite has one writer at a time), then appends its row
and evaluates the whole log: two workers recording two votes on one request
count them one after the other, and only the one whose vote decided it sees
the outcome change from ``pending``. Nothing here is updated but that row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, bindparam, exists, select, update
from sqlalchemy.orm import Session

from gateway import policy as rules
from gateway.contract import iso
from gateway.store.models import Recipient, Request
from gateway.store.policy_models import RequestPolicy, Vote
from gateway.store.prepared import Prepared, connection_of, prepared_insert
from gateway.store.reading_models import PendingReading


@dataclass(frozen=True)
class Cast:
    """What one vote did: the policy, the outcome before it, and where it stands now."""

    policy: rules.Policy
    before: str
    evaluation: rules.Evaluation
    delegates: dict[str, str]
    # The step waited on before this vote: a later one now means its approvers are asked.
    step_before: int = 0
    # Whom the vote counted for (a delegate's counts for the approver).
    person: str = ""

    @property
    def reached_now(self) -> bool:
        """This vote decided it: the one moment the outcome is told and pushed."""
        return self.before == rules.PENDING and self.evaluation.decided

    def as_object(self) -> dict[str, object]:
        return rules.as_object(self.policy, self.evaluation)


_POLICY_ROW = (
    "request_id",
    "rule",
    "outcome",
    "state",
    "delegates",
    "decided_at",
    "step_due_at",
    "updated_at",
)
# Inserted by a prepared statement, like the rest of a filing (the hottest write path).
_INSERT_POLICY = prepared_insert(RequestPolicy, _POLICY_ROW, returning_id=False)


def open_policy(
    session: Session, request_id: int, policy: rules.Policy, at: datetime, *, default: bool
) -> None:
    """The policy a request was filed under (``default``: no HFA_POLICIES rule applied)."""
    _INSERT_POLICY.execute(
        connection_of(session),
        {
            "request_id": request_id,
            "rule": rules.to_json(policy) | {"default": default},
            "outcome": rules.PENDING,
            "state": rules.as_object(policy, rules.evaluate(policy, [])),
            "delegates": {},
            "decided_at": None,
            "step_due_at": _due(policy, 0, at),
            "updated_at": at,
        },
    )


def _due(policy: rules.Policy, step: int, started: datetime) -> datetime | None:
    within = policy.steps[step].within if step < len(policy.steps) else None
    return started + timedelta(seconds=within) if within is not None else None


def steps_overdue(session: Session, now: datetime) -> list[int]:
    """Requests whose current step ran out of time with the policy still pending."""
    return list(
        session.scalars(
            select(RequestPolicy.request_id)
            .where(RequestPolicy.step_due_at <= now, RequestPolicy.outcome == rules.PENDING)
            .order_by(RequestPolicy.request_id)
        )
    )


_POLICIES = RequestPolicy.__table__.c
_VOTES = Vote.__table__.c
# The policy row and the vote log are read and written by statements compiled once, on
# the session's connection: a reply's vote is on the hottest write path, and the ORM's
# unit of work (a flush per statement) cost more than the statements. No RequestPolicy
# or Vote is ever held by the session, so nothing read here can be older than the table.
_PolicyRow = tuple[
    dict[str, Any], str, dict[str, Any], dict[str, Any], datetime | None, datetime | None
]
_POLICY_COLUMNS = (
    _POLICIES.rule,
    _POLICIES.outcome,
    _POLICIES.state,
    _POLICIES.delegates,
    _POLICIES.decided_at,
    _POLICIES.step_due_at,
)
_POLICY_READ = select(*_POLICY_COLUMNS).where(_POLICIES.request_id == bindparam("request_id"))
_POLICY = Prepared(_POLICY_READ, results=[c.type for c in _POLICY_COLUMNS])
# Locked until the transaction ends (PostgreSQL; SQLite has one writer at a time).
_LOCK_POLICY = Prepared(_POLICY_READ.with_for_update(), results=[c.type for c in _POLICY_COLUMNS])
_UPDATE_POLICY = Prepared(
    update(RequestPolicy)
    .where(_POLICIES.request_id == bindparam("request_id"))
    .values(
        rule=bindparam("rule"),
        outcome=bindparam("outcome"),
        state=bindparam("state"),
        decided_at=bindparam("decided_at"),
        step_due_at=bindparam("step_due_at"),
        updated_at=bindparam("updated_at"),
    )
)
_SET_DELEGATES = Prepared(
    update(RequestPolicy)
    .where(_POLICIES.request_id == bindparam("request_id"))
    .values(delegates=bindparam("delegates"))
)
_LOG_COLUMNS = (
    _VOTES.person,
    _VOTES.decision,
    _VOTES.at,
    _VOTES.voter,
    _VOTES.conditions,
    _VOTES.turn_id,
)
_LOG = Prepared(
    select(*_LOG_COLUMNS).where(_VOTES.request_id == bindparam("request_id")).order_by(_VOTES.id),
    results=[c.type for c in _LOG_COLUMNS],
)
_INSERT_VOTE = prepared_insert(
    Vote,
    ("request_id", "person", "voter", "decision", "conditions", "turn_id", "at"),
    returning_id=False,
)


def waiting_for(session: Session, request_id: int) -> list[str]:
    """Who has not answered yet, as the policy was last evaluated."""
    row = _POLICY.first(connection_of(session), {"request_id": request_id})
    return [str(a) for a in row[2].get("waiting_for", ())] if row is not None else []


def locked_policy(session: Session, request_id: int, at: datetime) -> _PolicyRow:
    """The request's policy row (rule, outcome, state, delegates, decided_at, step_due_at),
    locked until the transaction ends.

    A request filed before policies existed gets today's rule: any of its lawyers.
    """
    connection = connection_of(session)
    row = _LOCK_POLICY.first(connection, {"request_id": request_id})
    if row is not None:
        return row  # type: ignore[return-value]
    lawyers = session.scalars(
        select(Recipient.address)
        .where(Recipient.request_id == request_id, Recipient.role == "lawyer")
        .order_by(Recipient.id)
    ).all()
    open_policy(session, request_id, rules.any_of(lawyers), at, default=True)
    row = _LOCK_POLICY.first(connection, {"request_id": request_id})
    assert row is not None
    return row  # type: ignore[return-value]


def vote_log(session: Session, request_id: int) -> list[rules.Vote]:
    """Every vote of the request, oldest first."""
    rows = _LOG.all(connection_of(session), {"request_id": request_id})
    return [
        rules.Vote(person, decision, iso(at), voter, tuple(conditions))
        for person, decision, at, voter, conditions, _turn in rows
    ]


def cast(
    session: Session,
    request_id: int,
    *,
    address: str,
    voter: str,
    decision: str,
    at: datetime,
    conditions: Sequence[str] = (),
    turn_id: int | None = None,
    escalated: bool = False,
) -> Cast:
    """Append one vote (or an ``expire``) and evaluate the log, under the row lock.

    ``address``: the recipient the vote came through; ``voter``: its From.

    ``escalated``: the voter was brought in by escalation; under the default
    rule (any of the lawyers) they count as one more of its approvers.
    """
    rule, before, state, delegates, decided_at, step_due_at = locked_policy(session, request_id, at)
    policy = rules.from_json(rule)
    # A delegate's vote counts for the approver they answer for; anyone else's for the
    # address their reply token was issued to (their other addresses are the same person).
    person = str(delegates.get(address, address))
    step_before = int(str(state.get("step", 1))) - 1
    if escalated and rule.get("default") and person not in policy.approvers:
        policy = rules.any_of((*policy.approvers, person))
        rule = rules.to_json(policy) | {"default": True}
    # The log as it stood under the lock, and this vote after it: it is the newest row.
    log = vote_log(session, request_id)
    log.append(rules.Vote(person, decision, iso(at), voter, tuple(conditions)))
    connection = connection_of(session)
    _INSERT_VOTE.execute(
        connection,
        {
            "request_id": request_id,
            "person": person,
            "voter": voter,
            "decision": decision,
            "conditions": list(conditions),
            "turn_id": turn_id,
            "at": at,
        },
    )
    evaluation = rules.evaluate(policy, log)
    if before == rules.PENDING and evaluation.decided:
        decided_at = at
    if evaluation.decided:
        step_due_at = None
    elif evaluation.step > step_before:
        step_due_at = _due(policy, evaluation.step, at)
    _UPDATE_POLICY.execute(
        connection,
        {
            "request_id": request_id,
            "rule": rule,
            "outcome": evaluation.outcome,
            "state": rules.as_object(policy, evaluation),
            "decided_at": decided_at,
            "step_due_at": step_due_at,
            "updated_at": at,
        },
    )
    return Cast(policy, before, evaluation, dict(delegates), step_before, person)


def standing(session: Session, request_id: int, at: datetime) -> Cast:
    """Where the request stands now, under the lock, without a vote."""
    rule, outcome, _state, delegates, _decided, _due_at = locked_policy(session, request_id, at)
    policy = rules.from_json(rule)
    evaluation = rules.evaluate(policy, vote_log(session, request_id))
    return Cast(policy, outcome, evaluation, dict(delegates), evaluation.step, "")


def add_delegate(
    session: Session, request_id: int, delegate: str, person: str, at: datetime
) -> bool:
    """Record that ``delegate`` answers for ``person`` on this request; False if known."""
    delegates = locked_policy(session, request_id, at)[3]
    if delegate in delegates or person in delegates:
        # Asked before, or the person is a delegate themselves: no delegating again.
        return False
    _SET_DELEGATES.execute(
        connection_of(session),
        {"request_id": request_id, "delegates": {**delegates, delegate: person}},
    )
    return True


@dataclass(frozen=True)
class Decided:
    """A reached outcome, and the human turn whose vote reached it."""

    policy: rules.Policy
    evaluation: rules.Evaluation
    turn_id: int | None
    at: datetime


def decided(session: Session, request_id: int) -> Decided | None:
    """The request's outcome once reached (None while pending or without a policy row)."""
    row = _POLICY.first(connection_of(session), {"request_id": request_id})
    if row is None or row[1] == rules.PENDING:
        return None
    policy = rules.from_json(row[0])
    rows = _LOG.all(connection_of(session), {"request_id": request_id})
    log = [rules.Vote(r[0], r[1], iso(r[2]), r[3], tuple(r[4])) for r in rows]
    evaluation = rules.evaluate(policy, log)
    if not evaluation.decided:
        return None
    deciding = rows[evaluation.decided_after - 1]
    return Decided(policy, evaluation, deciding[5], row[4] or deciding[2])


def votes_awaited() -> ColumnElement[bool]:
    """Requests with a vote in and the policy still pending: their reminders go on (to
    those who have not voted) though a human has replied."""
    return exists(
        select(Vote.id)
        .join(RequestPolicy, RequestPolicy.request_id == Vote.request_id)
        .where(Vote.request_id == Request.id, RequestPolicy.outcome == rules.PENDING)
    )


def awaited(session: Session, request_id: int) -> frozenset[str] | None:
    """Who is still awaited when votes are in (or a lawyer was replaced) and the policy
    pending, their delegates included; None when a reminder goes to the whole thread."""
    row = _POLICY.first(connection_of(session), {"request_id": request_id})
    if row is None or row[1] != rules.PENDING:
        return None
    voted = session.scalars(select(Vote.id).where(Vote.request_id == request_id).limit(1)).first()
    # After a reassignment or a delegation too: the lawyer replaced, or who handed the
    # request to a delegate, is no longer reminded.
    if voted is None and not row[0].get("reassigned") and not row[3]:
        return None
    waiting = {str(a) for a in row[2].get("waiting_for", ())}
    delegates = {str(d) for d, person in row[3].items() if person in waiting}
    handed = {str(person) for person in row[3].values()}
    return frozenset((waiting - handed) | delegates)


def replace_approver(
    session: Session, request_id: int, old: str, new: str, at: datetime
) -> rules.Policy | None:
    """Put ``new`` in ``old``'s place in the request's policy, wherever ``old`` stands;
    None (nothing changed) unless the policy is pending and still waits for ``old``."""
    rule, outcome, state, _delegates, decided_at, step_due_at = locked_policy(
        session, request_id, at
    )
    if outcome != rules.PENDING or old not in state.get("waiting_for", ()):
        return None
    before = rules.from_json(rule)
    policy = rules.Policy(
        tuple(
            rules.Step(
                tuple(
                    rules.Group(tuple(new if m == old else m for m in g.members), g.need, g.name)
                    for g in step.groups
                ),
                step.within,
            )
            for step in before.steps
        ),
        before.veto,
    )
    evaluation = rules.evaluate(policy, vote_log(session, request_id))
    _UPDATE_POLICY.execute(
        connection_of(session),
        {
            "request_id": request_id,
            "rule": rules.to_json(policy)
            | {"default": rule.get("default", False), "reassigned": True},
            "outcome": evaluation.outcome,
            "state": rules.as_object(policy, evaluation),
            "decided_at": decided_at,
            "step_due_at": step_due_at,
            "updated_at": at,
        },
    )
    return policy


def reading_pending(session: Session, request_id: int) -> bool:
    """A reply on this request is waiting out its correction window: an answer is in, and
    nobody is chased until it takes effect or is corrected."""
    return (
        session.scalars(
            select(PendingReading.id)
            .where(PendingReading.request_id == request_id, PendingReading.settled_at.is_(None))
            .limit(1)
        ).first()
        is not None
    )
