"""Votes under random interleavings: the outcome is the policy over the votes, reached once.

Three layers, most interleavings in the cheapest: the pure evaluator against a
brute-force reference, vote by vote, the store in one process (each
vote its own transaction, on SQLite and PostgreSQL), and three real worker
processes voting on the same requests at once (``vote_worker``), where the locks
(the request's policy row; SQLite's one writer) stand between two votes of one request.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from gateway.policy import (
    APPROVE,
    APPROVED,
    PENDING,
    REJECT,
    REJECTED,
    Group,
    Policy,
    Vote,
    evaluate,
)
from gateway.services import Services, build_services
from gateway.settings.policies import parse_policy
from gateway.store.models import Request
from gateway.store.policy_models import RequestPolicy
from gateway.store.policy_models import Vote as VoteRow
from gateway.store.votes import add_delegate, cast, open_policy, vote_log
from tests.conftest import make_config

A, B, C, D = "a@firm.test", "b@firm.test", "c@firm.test", "d@firm.test"
ALIAS_OF_A = "a.home@mail.test"
DEPUTY_OF_B = "deputy@firm.test"
OUTSIDER = "x@else.test"
GROUPS = {"legal": (A, B, C), "finance": (C, D)}
RULES = (
    f"any of {A},{B},{C}",
    f"all of {A},{B},{C}",
    "2 of legal",
    "2 of legal wait",
    "all of legal wait",
    "2 of legal + 1 of finance",
    "2 of legal + 1 of finance wait",
    f"any of {A},{B} then all of {C},{D}",
    f"2 of {A},{B},{C} then any of {D} wait",
)
# (reply token's address, From): an alias votes through its owner's token, a delegate
# through their own (counted for B only where the delegation was made).
ACTORS = (
    (A, A),
    (A, ALIAS_OF_A),
    (B, B),
    (DEPUTY_OF_B, DEPUTY_OF_B),
    (C, C),
    (D, D),
    (OUTSIDER, OUTSIDER),
)
ROOT = Path(__file__).resolve().parents[2]

# (reply token's address and From, decision, sent twice)
Planned = tuple[tuple[str, str], str, bool]
events = st.lists(
    st.tuples(st.sampled_from(ACTORS), st.sampled_from((APPROVE, REJECT)), st.booleans()),
    max_size=12,
)


@functools.cache
def _policy(text: str) -> Policy:
    return parse_policy(text, GROUPS)


def _log(plan: Sequence[Planned], delegated: bool) -> list[Vote]:
    """The votes as counted, duplicates (the flag) sent twice."""
    log = []
    for n, ((address, voter), decision, twice) in enumerate(plan):
        person = B if delegated and address == DEPUTY_OF_B else address
        vote = Vote(person, decision, f"t{n}", voter)
        log += [vote, vote] if twice else [vote]
    return log


def reference_decision(policy: Policy, latest: dict[str, str]) -> str:
    """A brute-force reading of the rule, independent of the evaluator's matching."""
    for step in policy.steps:
        rejecting = {m for m in step.members if latest.get(m) == REJECT}
        if policy.veto and rejecting:
            return REJECTED
        if not _fills(step.groups, set(step.members) - rejecting):
            return REJECTED
        if not _fills(step.groups, {m for m in step.members if latest.get(m) == APPROVE}):
            return PENDING
    return APPROVED


def _fills(groups: Sequence[Group], people: set[str]) -> bool:
    """Try every way of giving each person to at most one group."""
    people_list = sorted(people)
    for choice in itertools.product(range(len(groups) + 1), repeat=len(people_list)):
        counts = Counter(choice)
        if all(
            counts[g] >= grp.required
            and all(people_list[i] in grp.members for i, c in enumerate(choice) if c == g)
            for g, grp in enumerate(groups)
        ):
            return True
    return False


@settings(max_examples=9200, deadline=None, derandomize=True)
@given(rule=st.sampled_from(RULES), plan=events, delegated=st.booleans())
def test_evaluator_matches_the_reference_vote_by_vote(
    rule: str, plan: list[Planned], delegated: bool
) -> None:
    policy = _policy(rule)
    log = _log(plan, delegated)
    final = evaluate(policy, log)
    # The reference, vote by vote: each approver's latest vote counts, once, until the
    # first prefix after which the rule is met or can no longer be met.
    latest: dict[str, str] = {}
    decided_after, expected = 0, PENDING
    for n, vote in enumerate(log, 1):
        if vote.person in policy.approvers:
            latest[vote.person] = vote.decision
        expected = reference_decision(policy, latest)
        if expected != PENDING:
            decided_after = n
            break
    assert (final.outcome, final.decided_after) == (expected, decided_after)
    if final.decided:
        # Decided once, then it stands: the one moment it is told and pushed.
        assert evaluate(policy, log[: decided_after - 1]).outcome == PENDING
        assert evaluate(policy, log[:decided_after]).outcome == final.outcome
    people = [v.person for v in (*final.approvals, *final.rejections)]
    assert len(people) == len(set(people)), "a person counted twice"
    assert set(people) == {v.person for v in log if v.person in policy.approvers}


def _request(services: Services, policy: Policy, delegated: bool) -> int:
    now = datetime.now(UTC)
    with services.db.transaction() as session:
        request = Request(
            category="legal_review",
            urgency="routine",
            status="recorded",
            fields={},
            access_token_hash="0" * 64,
            read_capability_hash=os.urandom(32).hex(),
            received_at=now,
            updated_at=now,
            reminders_sent=0,
            deadline_noticed=0,
            escalated=0,
        )
        session.add(request)
        session.flush()
        open_policy(session, request.id, policy, now, default=False)
        if delegated:
            add_delegate(session, request.id, DEPUTY_OF_B, B, now)
        return request.id


@pytest.fixture
def store(tmp_path: Path, database_url: str) -> Iterator[Services]:
    services = build_services(make_config(tmp_path, database_url=database_url))
    yield services
    services.close()


def test_votes_in_one_process_match_the_evaluator(store: Services) -> None:
    examples = 400 if store.db.engine.dialect.name == "sqlite" else 300

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(rule=st.sampled_from(RULES), plan=events, delegated=st.booleans())
    def check(rule: str, plan: list[Planned], delegated: bool) -> None:
        policy = _policy(rule)
        request_id = _request(store, policy, delegated)
        expected = _log(plan, delegated)
        reached = []
        for n, vote in enumerate(expected):
            address = DEPUTY_OF_B if vote.by == DEPUTY_OF_B else vote.person
            address = A if vote.by == ALIAS_OF_A else address
            with store.db.transaction() as session:
                done = cast(
                    session,
                    request_id,
                    address=address,
                    voter=vote.by,
                    decision=vote.decision,
                    at=datetime.now(UTC),
                )
                if done.reached_now:
                    reached.append(n + 1)
        with store.db.read_only() as session:
            stored = vote_log(session, request_id)
            row = session.get(RequestPolicy, request_id)
            assert row is not None
        want = evaluate(policy, expected)
        assert [(v.person, v.by, v.decision) for v in stored] == [
            (v.person, v.by, v.decision) for v in expected
        ], "a vote lost, doubled or counted for the wrong person"
        assert row.outcome == want.outcome == evaluate(policy, stored).outcome
        assert reached == ([want.decided_after] if want.decided else [])

    check()


def _plan(seed: int, requests: list[tuple[int, str, bool]]) -> dict[str, Any]:
    """Each request's votes, shared at random between three workers (order kept per
    worker, so the interleaving is whatever the processes make of it)."""
    rng = random.Random(seed)
    shares: list[list[tuple[int, str, str, str]]] = [[], [], []]
    for request_id, _rule, _delegated in requests:
        for _ in range(rng.randint(2, 9)):
            address, voter = rng.choice(ACTORS)
            decision = rng.choice((APPROVE, REJECT))
            # Sometimes the same vote twice, from two workers (a redelivery).
            for worker in rng.sample(range(3), 2 if rng.random() < 0.15 else 1):
                shares[worker].append((request_id, address, voter, decision))
    for share in shares:
        rng.shuffle(share)
    return {"shares": shares}


def test_three_worker_processes_push_each_outcome_once(
    store: Services, tmp_path: Path, database_url: str
) -> None:
    count = 160
    rng = random.Random(23)
    requests = []
    for _ in range(count):
        rule, delegated = rng.choice(RULES), rng.random() < 0.5
        requests.append((_request(store, _policy(rule), delegated), rule, delegated))
    plan = _plan(23, requests)
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.store.vote_worker",
                database_url,
                str(tmp_path),
                str(plan_file),
                str(i),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(3)
    ]
    for worker in workers:
        assert worker.stdout is not None
        assert "ready" in worker.stdout.readline()
    plan_file.with_suffix(".go").touch()
    lines = []
    for worker in workers:
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err[-2000:]
        lines += [json.loads(line) for line in out.splitlines()]
    sent = sum(len(s) for s in plan["shares"])
    assert len(lines) == sent
    reached = Counter(line["request"] for line in lines if line["reached"])
    with store.db.read_only() as session:
        rows = list(session.scalars(select(VoteRow)))
        for request_id, rule, _delegated in requests:
            stored = vote_log(session, request_id)
            row = session.get(RequestPolicy, request_id)
            assert row is not None
            want = evaluate(_policy(rule), stored)
            assert row.outcome == want.outcome
            assert reached[request_id] == (1 if want.decided else 0), request_id
    planned = Counter((r, a, d) for share in plan["shares"] for r, a, _v, d in share)
    kept = Counter((v.request_id, _address(v), v.decision) for v in rows)
    assert kept == planned, "a vote lost or doubled"
    assert sum(1 for _ in reached) > count // 3


def _address(row: VoteRow) -> str:
    """The address a stored vote came through (a delegate's is counted for B)."""
    if row.voter == DEPUTY_OF_B:
        return DEPUTY_OF_B
    return A if row.voter == ALIAS_OF_A else row.person
