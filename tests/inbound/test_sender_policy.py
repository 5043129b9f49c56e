"""The sender policy: what a reply must show for what it decides, by domain and setting."""

from __future__ import annotations

import pytest

from gateway.errors import ConfigError
from gateway.inbound.dmarc import DmarcRecord
from gateway.inbound.sender import SenderCheck
from gateway.inbound.sender_policy import policy_of, refusal
from gateway.replies import DecisionKind
from gateway.settings.config import Config, load_config


def config_of(**env: str) -> Config:
    return load_config(env={"HFA_LAWYERS": "counsel@firm.test"} | env)


def check_of(strength: str, dmarc: DmarcRecord) -> SenderCheck:
    return SenderCheck(
        True,
        "counsel@firm.test",
        strength=strength,
        dmarc=dmarc,
        authenticated_by={"method": strength},
    )


PUBLISHED, NONE, UNKNOWN = DmarcRecord("reject"), DmarcRecord(), DmarcRecord(unknown=True)


@pytest.mark.parametrize(
    ("policy", "strength", "dmarc", "kind", "held"),
    [
        # The default: a decision needs aligned DKIM when the domain publishes DMARC.
        ("", "token", PUBLISHED, DecisionKind.APPROVAL, True),
        ("", "token", PUBLISHED, DecisionKind.REJECTION, True),
        ("", "token", PUBLISHED, None, True),
        ("", "dmarc", PUBLISHED, DecisionKind.DECLINE, True),
        ("", "dkim", PUBLISHED, DecisionKind.APPROVAL, False),
        ("", "token", PUBLISHED, DecisionKind.QUESTION, False),
        ("", "token", PUBLISHED, DecisionKind.ACKNOWLEDGE, False),
        # No DMARC policy: a decision is not taken on the reply address alone (the default,
        # HFA_WEAK_SENDER_DECISIONS=confirm); what the rest of the ladder proves is enough.
        ("", "token", NONE, DecisionKind.APPROVAL, True),
        ("", "token", NONE, DecisionKind.REJECTION, True),
        ("", "token", NONE, DecisionKind.DECLINE, True),
        ("", "token", NONE, DecisionKind.CLOSE, True),
        ("", "token", NONE, DecisionKind.QUESTION, False),
        ("", "token", NONE, None, False),
        ("", "dmarc", NONE, DecisionKind.APPROVAL, False),
        ("", "dkim", NONE, DecisionKind.REJECTION, False),
        # DNS could not say: unknown is never taken for "no policy".
        ("", "token", UNKNOWN, DecisionKind.APPROVAL, True),
        ("", "token", UNKNOWN, DecisionKind.QUESTION, False),
        # Explicit policies apply to every reply.
        ("firm.test=token", "token", PUBLISHED, DecisionKind.APPROVAL, False),
        ("firm.test=dkim", "dmarc", NONE, DecisionKind.QUESTION, True),
        ("firm.test=dkim", "dkim", NONE, DecisionKind.APPROVAL, False),
        ("firm.test=dmarc", "dmarc", NONE, DecisionKind.APPROVAL, False),
        ("firm.test=dmarc", "token", NONE, DecisionKind.QUESTION, True),
    ],
)
def test_the_policy_decides_what_a_reply_must_show(
    policy: str, strength: str, dmarc: DmarcRecord, kind: DecisionKind | None, held: bool
) -> None:
    config = config_of(HFA_SENDER_POLICY=policy)
    reason = refusal(config, check_of(strength, dmarc), kind)
    assert bool(reason) is held, reason


def test_a_policy_covers_subdomains() -> None:
    config = config_of(HFA_SENDER_POLICY="firm.test=dkim")
    assert policy_of(config, "london.firm.test") == "dkim"
    assert policy_of(config, "notfirm.test") == ""


@pytest.mark.parametrize("kind", [DecisionKind.APPROVAL, DecisionKind.REJECTION])
def test_the_old_rule_records_a_decision_on_the_reply_address(kind: DecisionKind) -> None:
    config = config_of(HFA_WEAK_SENDER_DECISIONS="record")
    assert refusal(config, check_of("token", NONE), kind) == ""
    # An explicit policy or a published DMARC policy still asks more.
    assert refusal(config, check_of("token", PUBLISHED), kind) != ""
    strict = config_of(HFA_WEAK_SENDER_DECISIONS="record", HFA_SENDER_POLICY="firm.test=dkim")
    assert refusal(strict, check_of("token", NONE), kind) != ""


def test_the_setting_takes_confirm_or_record_only() -> None:
    assert config_of().lawyer.weak_sender_decisions == "confirm"
    recording = config_of(HFA_WEAK_SENDER_DECISIONS=" Record ")
    assert recording.lawyer.weak_sender_decisions == "record"
    with pytest.raises(ConfigError, match="HFA_WEAK_SENDER_DECISIONS: expected confirm"):
        config_of(HFA_WEAK_SENDER_DECISIONS="yes")
