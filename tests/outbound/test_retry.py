"""Which channel waits for what: a webhook for its own origin, every other channel for the relay."""

from __future__ import annotations

from gateway.outbound.retry import RELAY, receiver_of
from gateway.store.models import OutboxItem


def test_webhooks_wait_for_their_origin_and_every_other_channel_for_the_relay() -> None:
    def item(channel: str, target: str) -> OutboxItem:
        return OutboxItem(channel=channel, target=target)

    same = {
        receiver_of(item("webhook", url))
        for url in (
            "https://Agent.example/hook?token=1",
            "https://agent.example:443/other",
            "HTTPS://agent.example",
        )
    }
    assert same == {"https://agent.example:443"}
    assert receiver_of(item("webhook", "http://agent.example/hook")) == "http://agent.example:80"
    assert (
        receiver_of(item("webhook", "https://agent.example:8443/")) != "https://agent.example:443"
    )
    assert receiver_of(item("webhook", "https://[2001:db8::1]/h")) == "https://[2001:db8::1]:443"
    for channel in ("email", "push_email", "notice"):
        assert receiver_of(item(channel, "counsel@lawfirm.example")) == RELAY
