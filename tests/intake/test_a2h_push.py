"""A2H callbacks: their signature, and their retries judged per receiver, never the relay's."""

from __future__ import annotations

import hashlib
import hmac

from gateway.intake.a2h_push import CHANNEL, signature
from gateway.outbound import retry
from gateway.settings.config import Config
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
