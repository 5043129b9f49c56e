"""The approvers told as one group, and the documents listed as documents: table tests."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from gateway import i18n
from gateway import policy as rules
from gateway.clock import FrozenClock
from gateway.outbound import outbox
from gateway.outbound.group import GroupState, group_view, rule_sentences
from gateway.services import Services, build_services
from gateway.store.models import Recipient, Request
from gateway.store.votes import cast
from tests.conftest import make_config
from tests.lawyer_mails import compose_item, file, text_of

A, B, C = "counsel@firm.test", "partner@firm.test", "avocate@firm.test"
TWO_OF_THREE = rules.Policy((rules.Step((rules.Group((A, B, C), 2, "legal"),)),), veto=True)
BERLIN = ZoneInfo("Europe/Berlin")


@pytest.mark.parametrize(
    ("language", "says"),
    [
        (
            "en",
            "You are one of 3 approvers. 2 approvals are needed. One rejection stops it. "
            f"Also asked: {B}, {C}.",
        ),
        (
            "de",
            "Sie sind eine/r von 3 Genehmigenden. 2 Genehmigungen sind nötig. Eine Ablehnung "
            f"stoppt sie. Ebenfalls gefragt: {B}, {C}.",
        ),
        (
            "fr",
            "Vous êtes l’un des 3 approbateurs. 2 approbations sont nécessaires. Un seul rejet "
            f"l’arrête. Également sollicités : {B}, {C}.",
        ),
    ],
)
def test_the_rule_is_composed_in_the_lawyers_language_never_shown_raw(
    language: str, says: str
) -> None:
    with i18n.speaking(language):
        text = " ".join(rule_sentences(TWO_OF_THREE, A))
    assert text == says
    assert "2 of" not in text and "legal" not in text and "veto" not in text


def test_steps_groups_time_limits_and_wait_read_as_sentences() -> None:
    policy = rules.Policy(
        (
            rules.Step((rules.Group((A, B), 1, "legal"),), within=2 * 86400),
            rules.Step((rules.Group((C,), None, "board"), rules.Group((A, B), 1))),
        ),
        veto=False,
    )
    text = " ".join(rule_sentences(policy, "gc@firm.test"))
    assert text.startswith("3 approvers decide this request. ")
    assert f"Step 1 of 2: 1 approval from {A}, {B} (within 2 days)." in text
    assert f"Step 2 of 2: an approval from every one of {C}; 1 approval from {A}, {B}." in text
    assert "it is rejected once the approvals needed can no longer be reached" in text
    assert "You are one of" not in text  # gc is not an approver


def _decided() -> GroupState:
    evaluation = rules.evaluate(
        TWO_OF_THREE,
        [
            rules.Vote(A, rules.APPROVE, "2026-12-07T10:00:00+00:00", A, ("cap 12 months",)),
            rules.Vote(B, rules.APPROVE, "2026-12-07T10:05:00+00:00", B, ("Haftung begrenzt",)),
            rules.Vote(C, rules.REJECT, "2026-12-07T10:09:00+00:00", C),
        ],
    )
    return GroupState(
        rules.to_json(TWO_OF_THREE),
        rules.as_object(TWO_OF_THREE, evaluation),
        evaluation.outcome,
        datetime(2026, 12, 7, 10, 5, tzinfo=UTC),
    )


def test_the_outcome_lists_every_vote_every_condition_and_the_later_objection() -> None:
    group = _decided()
    view = group_view(group, A, BERLIN)
    assert view is not None
    assert view["headline"] == "Decided: APPROVED WITH CONDITIONS"
    assert [(v["said"], v["who"]) for v in view["votes"]] == [("APPROVED", A), ("APPROVED", B)]
    assert view["votes"][0]["at"] == "Mon 7 Dec 2026, 11:00 CET"
    assert view["conditions"] == ["cap 12 months", "Haftung begrenzt"]
    assert [(v["said"], v["who"]) for v in view["later"]] == [("REJECTED", C)]
    assert view["mine"] == "Your approval counted."
    objector = group_view(group, C, BERLIN)
    assert objector is not None and "does not change it" in objector["mine"]
    with i18n.speaking("de"):
        german = group_view(group, B, BERLIN)
    assert german is not None and german["mine"] == "Ihre Genehmigung hat gezählt."
    assert german["headline"] == "Entschieden: GENEHMIGT MIT BEDINGUNGEN"


def test_while_pending_the_tally_names_who_is_still_awaited() -> None:
    log = [rules.Vote(A, rules.APPROVE, "2026-12-07T10:00:00+00:00", A)]
    state = rules.as_object(TWO_OF_THREE, rules.evaluate(TWO_OF_THREE, log))
    group = GroupState(rules.to_json(TWO_OF_THREE), state)
    view = group_view(group, B, BERLIN)
    assert view is not None and not view["decided"]
    assert view["waiting"] == C and view["awaits_me"]
    assert view["mine"] == "Your answer is still needed."
    held = group_view(group, B, BERLIN, held=True)
    assert held is not None and held["waiting"] == C
    assert held["mine"] == "Your answer counts when its correction window ends."


def test_one_approver_is_no_group() -> None:
    alone = rules.any_of([A])
    state = rules.as_object(alone, rules.evaluate(alone, []))
    assert group_view(GroupState(rules.to_json(alone), state), A, BERLIN) is None
    assert group_view(None, A, BERLIN) is None


@pytest.fixture
def two_of_three(tmp_path: Path) -> Iterator[Services]:
    built = build_services(
        make_config(
            tmp_path,
            lawyers=f"{A},{B},{C}",
            policies=f"*=2 of {A},{B},{C} veto",
            lawyer_languages=f"{B}=de",
        ),
        clock=FrozenClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC)),
    )
    yield built
    built.close()


def _after_counsels_approval(
    services: Services, purpose: str, payload: dict[str, object]
) -> dict[str, EmailMessage]:
    """Counsel's approval counted; then one ``purpose`` email to each lawyer, composed."""
    request_id = file(services)
    now = services.clock.now()
    items = {}
    with services.db.transaction() as session:
        cast(session, request_id, address=A, voter=A, decision=rules.APPROVE, at=now)
        request = session.get(Request, request_id)
        assert request is not None
        for recipient in session.scalars(
            select(Recipient).where(Recipient.request_id == request_id)
        ):
            items[recipient.address] = outbox.enqueue_lawyer_email(
                services, session, request, recipient, purpose=purpose, at=now, payload=payload
            )
    return {address: compose_item(services, item) for address, item in items.items()}


def test_a_follow_up_does_not_ask_a_lawyer_whose_vote_is_in(two_of_three: Services) -> None:
    mails = _after_counsels_approval(two_of_three, "follow_up", {"message": "Cap is 14.2."})
    voted, awaited = text_of(mails[A]), text_of(mails[C])
    assert "your answer is still needed" not in voted
    assert "a follow-up from the agent, for your information" in voted
    assert f"APPROVED - {A}" in " ".join(voted.split())
    assert "Your approval is counted; you can still change it" in " ".join(voted.split())
    assert "your answer is still needed" in awaited
    assert "Your answer is still needed." in " ".join(awaited.split())


def test_an_approver_away_notice_never_both_asks_and_says_no_answer_is_needed(
    two_of_three: Services,
) -> None:
    mails = _after_counsels_approval(two_of_three, "approver_away", {"who": C})
    voted, awaited = " ".join(text_of(mails[A]).split()), " ".join(text_of(mails[B]).split())
    assert "nothing more is needed from you" in voted and "still needed" not in voted
    assert "<mailto:" not in voted
    # Partner is still awaited: asked, with the buttons, in German, never "no answer needed".
    assert "Ihre Antwort wird weiterhin benötigt." in awaited and "<mailto:" in awaited
    assert "Keine Antwort ist nötig" not in awaited


def test_a_deadline_notice_tells_a_voter_their_answer_is_in(two_of_three: Services) -> None:
    mails = _after_counsels_approval(two_of_three, "deadline_passed", {"closes": False})
    voted = " ".join(text_of(mails[A]).split())
    assert "no human has answered" not in voted and "still wanted" not in voted
    assert "nothing more is needed from you" in voted
    assert "Your answer is still needed." in " ".join(text_of(mails[C]).split())
