"""A2H callbacks: their signature, and their retries judged per receiver, never the relay's."""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from gateway.clock import FrozenClock
from gateway.intake import a2h_v1
from gateway.intake.a2h_push import CHANNEL, message_for, queue_due, signature
from gateway.outbound import retry
from gateway.services import build_services
from gateway.settings.config import Config
from gateway.store.a2h_models import A2hInteraction
from gateway.store.models import OutboxItem


def test_the_signature_is_the_specs_hmac_over_time_and_body() -> None:
    body = b'{"type":"RESPONSE"}'
    expected = hmac.new(b"whsec_x", b"1705667100." + body, hashlib.sha256).hexdigest()
    assert signature("whsec_x", 1705667100, body) == f"t=1705667100,v1={expected}"


def test_a_callback_is_retried_as_a_webhook_to_its_own_origin(config: Config) -> None:
    item = OutboxItem(channel=CHANNEL, target="https://agent.example/a2h/hook")
    # A failing agent never makes the gateway back off its mail relay.
    assert retry.receiver_of(item) == "https://agent.example:443"
    assert retry.period_seconds(config, item) == config.webhook_retry_seconds


def test_an_unanswered_interaction_past_its_ttl_is_pushed_as_expired_once(config: Config) -> None:
    clock = FrozenClock(datetime.now(UTC))
    services = build_services(config, clock=clock)
    try:
        body = {
            "type": "AUTHORIZE",
            "message_id": "msg-1",
            "agent_id": "did:web:bot.example",
            "principal_id": "usr_1",
            "render": {"body": "Sign it?"},
            "ttl_sec": 60,
            "callback": {"url": "https://agent.example/hook", "secret": "whsec_x"},
        }
        with services.db.transaction() as session:
            arguments = a2h_v1.arguments_for(services, body, "AUTHORIZE", clock.now())
            row = a2h_v1.open_interaction(services, session, body, arguments, None)
        with services.db.transaction() as session:
            assert queue_due(services, session, clock.now()) == 0
        clock.advance(timedelta(seconds=61))
        with services.db.transaction() as session:
            assert queue_due(services, session, clock.now()) == 1
            assert queue_due(services, session, clock.now()) == 0
            found = session.get(A2hInteraction, row.interaction_id)
            assert found is not None
            message = message_for(services, session, found)
        assert message is not None and message["type"] == "ERROR"
        assert message["error"]["code"] == "ERR.EXPIRED"
        with services.db.read_only() as session:
            items = session.scalars(select(OutboxItem).where(OutboxItem.channel == CHANNEL)).all()
            assert [i.target for i in items] == ["https://agent.example/hook"]
            assert "whsec_x" not in str(items[0].payload)
    finally:
        services.close()
