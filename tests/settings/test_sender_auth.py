"""HFA_DNS_RESOLVER, HFA_ARC_TRUSTED_SEALERS and HFA_SENDER_POLICY: read, or refused by name."""

from __future__ import annotations

import pytest

from gateway.errors import ConfigError
from gateway.settings.config import load_config

BASE = {"HFA_LAWYERS": "counsel@firm.test"}


def test_defaults_are_the_system_resolver_no_sealers_and_no_policy() -> None:
    config = load_config(env=BASE)
    assert config.dns_resolver == ""
    assert config.arc_trusted_sealers == frozenset()
    assert dict(config.sender_policy) == {}


def test_values_are_read() -> None:
    config = load_config(
        env=BASE
        | {
            "HFA_DNS_RESOLVER": "127.0.0.1:5353",
            "HFA_ARC_TRUSTED_SEALERS": "Tenant.Example, google.example",
            "HFA_SENDER_POLICY": "firm.test=dmarc, Other.Test=TOKEN",
        }
    )
    assert config.dns_resolver == "127.0.0.1:5353"
    assert config.arc_trusted_sealers == {"tenant.example", "google.example"}
    assert dict(config.sender_policy) == {"firm.test": "dmarc", "other.test": "token"}
    assert load_config(env=BASE | {"HFA_DNS_RESOLVER": "::1"}).dns_resolver == "::1:53"
    assert load_config(env=BASE | {"HFA_DNS_RESOLVER": "[::1]:53"}).dns_resolver == "::1:53"
    assert load_config(env=BASE | {"HFA_DNS_RESOLVER": "OFF"}).dns_resolver == "off"


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("HFA_DNS_RESOLVER", "dns.example:53", "an IP address"),
        ("HFA_DNS_RESOLVER", "127.0.0.1:0", "an IP address"),
        ("HFA_SENDER_POLICY", "firm.test=strict", "dmarc, dkim, token"),
        ("HFA_SENDER_POLICY", "counsel@firm.test=dkim", "DOMAIN=POLICY"),
        ("HFA_SENDER_POLICY", "firm.test", "DOMAIN=POLICY"),
        ("HFA_ARC_TRUSTED_SEALERS", "arc@tenant.example", "domains"),
    ],
)
def test_a_bad_value_is_refused_naming_the_setting_and_what_it_takes(
    name: str, value: str, expected: str
) -> None:
    with pytest.raises(ConfigError, match=name) as raised:
        load_config(env=BASE | {name: value})
    assert expected in str(raised.value)
