"""Connection limits and the sender policy, read and checked for ``gateway.settings.config``.

``gateway.settings.config`` spreads the result into ``Config`` (as it does ``mail_auth``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gateway.errors import ConfigError

_ON = ("1", "true", "yes", "on")
_OFF = ("0", "false", "no", "off", "")


def _number(values: Mapping[str, str], name: str, kind: type[int] | type[float]) -> Any:
    try:
        value = kind(values[name])
    except ValueError:
        raise ConfigError(f"HFA_{name.upper()}: expected a number, got {values[name]!r}") from None
    if value <= 0:
        raise ConfigError(f"HFA_{name.upper()}: expected a number above 0")
    return value


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


def _networks(text: str, setting: str = "HFA_TRUSTED_RELAYS") -> tuple[IPNetwork, ...]:
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


def _switch(values: Mapping[str, str], name: str) -> bool:
    value = values[name].strip().lower()
    if value not in _ON + _OFF:
        raise ConfigError(f"HFA_{name.upper()}: expected 1 or 0, got {value!r}")
    return value in _ON


def _listening(values: Mapping[str, str], server: str) -> Listening:
    return Listening(
        _number(values, f"{server}_timeout_seconds", float),
        _number(values, f"{server}_max_connections", int),
        _number(values, f"{server}_max_connections_per_client", int),
    )


def guard_fields(values: Mapping[str, str]) -> dict[str, Any]:
    """SMTP and HTTP timeouts and connection caps, the trusted relays, the wait for the
    relay's answer to the final dot, and HFA_REQUIRE_AUTHENTICATED_SENDER."""
    fields: dict[str, Any] = {
        "listeners": Listeners(
            _listening(values, "smtp"),
            _listening(values, "http"),
            _networks(values["trusted_relays"]),
            _number(values, "smtp_trusted_relay_connections", int),
            _networks(values["trusted_proxies"], "HFA_TRUSTED_PROXIES"),
            _switch(values, "access_log"),
            values["metrics_token"].strip(),
        ),
        "relay_dot_timeout_seconds": _number(values, "smtp_relay_dot_timeout_seconds", float),
    }
    required = _switch(values, "require_authenticated_sender")
    if required and not values["trusted_authserv_id"].strip():
        raise ConfigError(
            "HFA_REQUIRE_AUTHENTICATED_SENDER=1 needs HFA_TRUSTED_AUTHSERV_ID: without a "
            "trusted server no reply could ever be recorded"
        )
    fields["require_authenticated_sender"] = required
    return fields
