"""The webhook SSRF guard on every IPv6 form that carries an IPv4 address."""

from __future__ import annotations

import ipaddress

import pytest

from gateway.errors import Refused
from gateway.outbound.webhooks import address_allowed, pin


def forms(v4: str) -> dict[str, str]:
    """Each IPv6 transition form of the IPv4 address ``v4``."""
    n = int(ipaddress.IPv4Address(v4))
    high, low = n >> 16, n & 0xFFFF
    obfuscated = n ^ 0xFFFFFFFF  # Teredo stores the client address bit-inverted
    return {
        "NAT64 64:ff9b::/96": f"64:ff9b::{high:x}:{low:x}",
        "NAT64 local-use 64:ff9b:1::/48": f"64:ff9b:1::{high:x}:{low:x}",
        "6to4 2002::/16": f"2002:{high:x}:{low:x}::1",
        "Teredo 2001::/32": f"2001:0:4136:e378:8000:63bf:{obfuscated >> 16:x}:{obfuscated & 0xFFFF:x}",
        "IPv4-compatible ::a.b.c.d": f"::{v4}",
        "IPv4-mapped ::ffff:a.b.c.d": f"::ffff:{v4}",
        "IPv4-translated ::ffff:0:a.b.c.d": f"::ffff:0:{v4}",
    }


NOT_GLOBAL = ("127.0.0.1", "169.254.169.254", "10.0.0.1", "192.168.1.1", "100.64.0.1", "0.0.0.0")
CASES = [(v4, form, address) for v4 in NOT_GLOBAL for form, address in forms(v4).items()]


@pytest.mark.parametrize(("v4", "form", "address"), CASES)
async def test_every_transition_form_of_a_non_global_ipv4_is_refused(
    v4: str, form: str, address: str
) -> None:
    assert not address_allowed(address, allow_private=False), (form, v4)

    async def resolve(host: str, port: int) -> list[str]:
        return [address]

    with pytest.raises(Refused):
        await pin("https://hooks.example.com/x", allow_private=False, resolve=resolve)


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b::101:101",  # NAT64 of 1.1.1.1
        "2002:101:101::1",  # 6to4 of 1.1.1.1
        "2606:4700:4700::1111",  # plain global IPv6
        "1.1.1.1",
    ],
)
def test_forms_of_a_global_address_still_pass(address: str) -> None:
    assert address_allowed(address, allow_private=False)
