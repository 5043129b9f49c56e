"""The pure evaluator: what a log of votes adds up to under a policy."""

from __future__ import annotations

import pytest

from gateway.policy import (
    APPROVE,
    APPROVED,
    APPROVED_WITH_CONDITIONS,
    EXPIRE,
    EXPIRED,
    PENDING,
    REJECT,
    REJECTED,
    Policy,
    Vote,
    any_of,
    as_object,
    evaluate,
    from_json,
    tally,
    to_json,
)
from gateway.settings.policies import parse_policy

A, B, C, D = "a@firm.test", "b@firm.test", "c@firm.test", "d@firm.test"
GROUPS = {"legal": (A, B, C), "finance": (C, D)}


def rule(text: str) -> Policy:
    return parse_policy(text, GROUPS)


def votes(*pairs: tuple[str, str]) -> list[Vote]:
    return [Vote(who, what, f"2026-12-01T10:00:0{n}Z") for n, (who, what) in enumerate(pairs)]


CASES = [
    # (rule, votes, outcome, waiting_for)
    ("any of a@firm.test,b@firm.test", [], PENDING, (A, B)),
    ("any of a@firm.test,b@firm.test", [(A, APPROVE)], APPROVED, ()),
    ("any of a@firm.test,b@firm.test", [(B, REJECT)], REJECTED, ()),
    ("all of a@firm.test,b@firm.test", [(A, APPROVE)], PENDING, (B,)),
    ("all of a@firm.test,b@firm.test", [(A, APPROVE), (B, APPROVE)], APPROVED, ()),
    ("2 of legal", [(A, APPROVE)], PENDING, (B, C)),
    ("2 of legal", [(A, APPROVE), (A, APPROVE)], PENDING, (B, C)),
    ("2 of legal", [(A, APPROVE), (C, APPROVE)], APPROVED, ()),
    # veto (the default): one rejection ends it at once.
    ("2 of legal", [(A, APPROVE), (B, REJECT)], REJECTED, ()),
    # wait: counted until 2 approvals can no longer come.
    ("2 of legal wait", [(A, APPROVE), (B, REJECT)], PENDING, (C,)),
    ("2 of legal wait", [(A, REJECT), (B, REJECT)], REJECTED, ()),
    ("2 of legal wait", [(A, APPROVE), (B, REJECT), (C, APPROVE)], APPROVED, ()),
    # A changed vote before the outcome replaces the earlier one.
    ("2 of legal wait", [(A, REJECT), (A, APPROVE), (B, APPROVE)], APPROVED, ()),
    # Groups: one person counts once, even when they are in both groups.
    ("2 of legal + 1 of finance", [(A, APPROVE), (C, APPROVE)], PENDING, (B, D)),
    ("2 of legal + 1 of finance", [(A, APPROVE), (C, APPROVE), (D, APPROVE)], APPROVED, ()),
    ("2 of legal + 1 of finance", [(A, APPROVE), (B, APPROVE), (C, APPROVE)], APPROVED, ()),
    # Steps: the second is waited on once the first is met.
    ("any of a@firm.test then all of d@firm.test", [(A, APPROVE)], PENDING, (D,)),
    ("any of a@firm.test then all of d@firm.test", [(D, APPROVE)], PENDING, (A,)),
    ("any of a@firm.test then all of d@firm.test", [(D, APPROVE), (A, APPROVE)], APPROVED, ()),
    ("any of a@firm.test then all of d@firm.test", [(A, APPROVE), (D, REJECT)], REJECTED, ()),
    # Someone outside the policy is recorded elsewhere, never counted.
    ("any of a@firm.test", [("x@else.test", APPROVE)], PENDING, (A,)),
]


@pytest.mark.parametrize(("text", "log", "outcome", "waiting"), CASES)
def test_outcomes(
    text: str, log: list[tuple[str, str]], outcome: str, waiting: tuple[str, ...]
) -> None:
    result = evaluate(rule(text), votes(*log))
    assert result.outcome == outcome
    assert result.waiting_for == waiting


def test_the_outcome_stands_and_a_later_disagreeing_vote_is_a_conflict() -> None:
    policy = rule("2 of legal")
    result = evaluate(policy, votes((A, APPROVE), (B, APPROVE), (C, REJECT)))
    assert result.outcome == APPROVED
    assert result.decided_after == 2
    assert result.conflict
    assert [v.person for v in result.rejections] == [C]


def test_an_approval_after_a_veto_is_a_conflict_and_changes_nothing() -> None:
    result = evaluate(rule("2 of legal"), votes((B, REJECT), (A, APPROVE), (C, APPROVE)))
    assert result.outcome == REJECTED
    assert result.conflict


def test_wait_mode_outcome_with_a_rejection_on_record_is_a_conflict() -> None:
    result = evaluate(rule("2 of legal wait"), votes((A, APPROVE), (B, REJECT), (C, APPROVE)))
    assert (result.outcome, result.conflict) == (APPROVED, True)


def test_conditions_of_any_counted_approval_are_carried() -> None:
    log = [
        Vote(A, APPROVE, "t1", A, ("cap at 10k",)),
        Vote(B, APPROVE, "t2", B, ("cap at 10k", "no auto-renewal")),
    ]
    result = evaluate(rule("2 of legal"), log)
    assert result.outcome == APPROVED_WITH_CONDITIONS
    assert result.conditions == ("cap at 10k", "no auto-renewal")


def test_expiry_ends_a_pending_policy_only() -> None:
    assert evaluate(rule("2 of legal"), votes((A, APPROVE), ("", EXPIRE))).outcome == EXPIRED
    after = evaluate(rule("any of legal"), votes((A, APPROVE), ("", EXPIRE)))
    assert after.outcome == APPROVED


def test_a_changed_vote_after_the_outcome_is_shown_not_counted() -> None:
    result = evaluate(rule("any of legal"), votes((A, APPROVE), (A, REJECT)))
    assert result.outcome == APPROVED
    assert result.approvals == ()
    assert [v.person for v in result.rejections] == [A]
    assert result.conflict


def test_tally_line_for_the_receipt() -> None:
    policy = rule("2 of legal")
    result = evaluate(policy, votes((A, APPROVE)))
    assert tally(policy, result, A) == (
        "2 of 3 approvals needed; you are the first; waiting for b@, c@"
    )
    done = evaluate(policy, votes((A, APPROVE), (B, APPROVE)))
    assert tally(policy, done, B) == "outcome: approved"


def test_policy_object_and_round_trip() -> None:
    policy = rule("2 of legal + 1 of finance within 2d then all of e@firm.test wait")
    assert from_json(to_json(policy)) == policy
    shown = as_object(policy, evaluate(policy, votes((A, APPROVE))))
    assert shown["outcome"] == PENDING
    assert shown["rule"] == "2 of legal + any of finance within 2d then all of e@firm.test wait"
    assert shown["approvals"] == [{"who": A, "at": "2026-12-01T10:00:00Z", "conditions": []}]


def test_extra_approvers_ask_for_more_never_fewer() -> None:
    policy = any_of((A, B)).with_extra_approvers(["C@firm.test"])
    assert evaluate(policy, votes((A, APPROVE))).outcome == PENDING
    assert evaluate(policy, votes((A, APPROVE), (C, APPROVE))).outcome == APPROVED
