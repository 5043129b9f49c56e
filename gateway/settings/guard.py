"""Connection limits: what each listener allows, and which networks are trusted in front.

Config keeps them as one ``Config.listeners`` value, whose parts the settings table
fills (``into="listeners.smtp.max_connections"`` and so on).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from gateway.errors import ConfigError


@dataclass(frozen=True)
class Listening:
    """What one listener allows: HFA_{SMTP,HTTP}_TIMEOUT_SECONDS and the connection caps."""

    timeout_seconds: float
    max_connections: int
    max_connections_per_client: int


@dataclass(frozen=True)
class Listeners:
    smtp: Listening
    http: Listening
    # HFA_TRUSTED_RELAYS: the MTAs in front, which get a reserve of SMTP slots of their
    # own (HFA_SMTP_TRUSTED_RELAY_CONNECTIONS).
    trusted_relays: tuple[IPNetwork, ...] = ()
    trusted_relay_connections: int = 0
    # The HTTP side as operators run it: HFA_TRUSTED_PROXIES (whose X-Forwarded-For is
    # believed), HFA_ACCESS_LOG, HFA_METRICS_TOKEN.
    trusted_proxies: tuple[IPNetwork, ...] = ()
    access_log: bool = True
    metrics_token: str = field(default="", repr=False)

    def is_trusted_relay(self, client: str) -> bool:
        return in_networks(client, self.trusted_relays)

    def is_trusted_proxy(self, client: str) -> bool:
        return bool(self.trusted_proxies) and in_networks(client, self.trusted_proxies)

    def smtp_reserve(self) -> int:
        """The SMTP slots kept for trusted relays (none when no relay is trusted)."""
        return self.trusted_relay_connections if self.trusted_relays else 0


IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def in_networks(client: str, networks: tuple[IPNetwork, ...]) -> bool:
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in networks)


def networks(text: str, setting: str) -> tuple[IPNetwork, ...]:
    networks = []
    for item in text.replace(";", ",").split(","):
        item = item.strip()
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ConfigError(
                f"{setting}: expected IP addresses or networks (127.0.0.1, "
                f"10.0.0.0/8), got {item!r}"
            ) from None
    return tuple(networks)
