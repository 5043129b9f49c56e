"""Reading HFA_POLICIES, HFA_APPROVER_GROUPS and HFA_DELEGATES."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from gateway.errors import ConfigError
from gateway.policy import Group, Policy, Step
from gateway.settings.config import load_config, read_config_file
from gateway.settings.policies import parse_delegates, parse_groups, parse_policy
from tests.conftest import make_config

A, B, C = "counsel@firm.test", "partner@firm.test", "gc@firm.test"


def test_the_issue_example_per_category(tmp_path: Path) -> None:
    config = make_config(
        tmp_path,
        policies=f"legal_review=2 of {A},{B},{C}; human_confirmation=any of ops@firm.test,"
        "cfo@firm.test",
    )
    legal = config.lawyer.approval.policy_for("legal_review", config.lawyers_for("legal_review"))
    assert legal == Policy((Step((Group((A, B, C), 2),)),), veto=True)
    confirmation = config.lawyer.approval.policy_for("human_confirmation", ())
    assert confirmation is not None and confirmation.approvers == ("ops@firm.test", "cfo@firm.test")
    # A category without a rule keeps today's: any of its lawyers.
    physical = config.lawyer.approval.policy_for("physical_action", config.lawyers_for("x"))
    assert physical is not None and physical.text() == f"any of {config.lawyers_for('x')[0]} veto"


def test_groups_steps_deadlines_and_wait() -> None:
    groups = parse_groups(f"legal={A},{B}; finance={C}")
    policy = parse_policy("2 of legal within 2d then 1 of finance + all of x@y.test wait", groups)
    assert not policy.veto
    assert policy.steps[0].within == 2 * 86400
    assert policy.steps[1].groups == (Group((C,), 1, "finance"), Group(("x@y.test",), None))


def test_aliases_in_a_policy_are_the_same_person(tmp_path: Path) -> None:
    config = make_config(tmp_path, policies=f"*=2 of {A}|jane@home.test,{B},{C}")
    assert config.aliases_of(A) == {"jane@home.test"}
    assert config.lawyer.approval.policy_for(
        "legal_review", config.lawyers_for("legal_review")
    ).approvers == (A, B, C)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("4 of a@x.test,b@x.test", "asks for 4 of 2"),
        ("2 of nobody", "unknown group 'nobody'"),
        ("two of a@x.test", "expected 'any of'"),
        ("any of a@x.test then any of a@x.test", "in two steps"),
        ("any of not-an-address@", "not an email address"),
        ("any of a@x.test within soon", "within soon"),
    ],
)
def test_refused_with_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        parse_policy(text, {})


def test_unknown_category_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="HFA_POLICIES: expected CATEGORY"):
        make_config(tmp_path, policies="legal=any of a@x.test")


def test_delegates_with_and_without_dates() -> None:
    table = parse_delegates(f"{A}=deputy@firm.test 2026-12-20..2027-01-02; {B}=d2@firm.test")
    assert table[A].active(date(2026, 12, 24))
    assert not table[A].active(date(2027, 1, 3))
    assert table[B].active(date(2030, 1, 1))
    with pytest.raises(ConfigError, match="HFA_DELEGATES"):
        parse_delegates(f"{A}=deputy@firm.test 2027-01-02..2026-12-20")
    with pytest.raises(ConfigError, match="own delegate"):
        parse_delegates(f"{A}={A}")


def test_policies_and_delegates_from_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "gateway.toml"
    path.write_text(
        f'policies = "legal_review=all of {A},{B} wait"\n'
        f'delegates = "{A}=deputy@firm.test 2026-12-01..2026-12-31"\n'
        f'lawyers = "{A},{B}"\n',
        encoding="utf-8",
    )
    config = load_config(env={"HFA_DATA_DIR": str(tmp_path)}, file_values=read_config_file(path))
    assert config.lawyer.approval.policy_for(
        "legal_review", config.lawyers_for("legal_review")
    ) == Policy((Step((Group((A, B), None),)),), veto=False)
    assert config.lawyer.approval.delegates[A].delegate == "deputy@firm.test"
