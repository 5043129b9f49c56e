"""Where the gateway listens and where it relays: ``host:port`` settings and the relay's TLS."""

from __future__ import annotations

from gateway.errors import ConfigError

RELAY_TLS = ("none", "starttls", "tls")


def host_port(value: str, setting: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ConfigError(f"{setting}: expected host:port, got {value!r}")
    return host.strip("[]"), int(port)


def relay(value: str, setting: str) -> tuple[str, int] | None:
    """HFA_SMTP_RELAY: empty writes mail to the Maildir instead."""
    value = value.strip()
    return host_port(value, setting) if value else None


def relay_tls(value: str, setting: str) -> str:
    tls = value.strip().lower()
    if tls not in RELAY_TLS:
        raise ConfigError(f"{setting}: expected none, starttls or tls, got {tls!r}")
    return tls


def base_url(value: str, _setting: str) -> str:
    """HFA_PUBLIC_URL without its trailing slash; empty: http://HTTP_BIND."""
    return value.strip().rstrip("/")
