"""Resolved settings: each row of the settings table read, checked and typed once.

Settings come from ``HFA_*`` environment variables and, optionally, a TOML
file (``hfa serve --config FILE``); the environment wins over the file. Each
row's text is read by the row's type (``gateway.settings.setting``) and lands in
the Config attribute the row names; ``gateway.settings.combined`` adds what joins
several rows. A value that cannot be read is refused with the setting's name and
what was expected.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.settings.combined import combine
from gateway.settings.guard import Listeners, Listening
from gateway.settings.lawyers import LawyerSettings
from gateway.settings.retention import Retention
from gateway.settings.table import BY_NAME, SETTINGS
from gateway.settings.unknown import read_config_file as read_config_file
from gateway.settings.unknown import warn_unknown


@dataclass(frozen=True)
class Config:
    """Resolved settings; build with :func:`load_config`."""

    raw: Mapping[str, str] = field(repr=False)
    data_dir: Path
    database_url: str
    http_host: str
    http_port: int
    smtp_host: str
    smtp_port: int
    smtp_hostname: str
    public_url: str
    reply_domain: str
    mail_from: str
    smtp_relay: tuple[str, int] | None
    smtp_relay_username: str
    smtp_relay_password: str = field(repr=False)
    a2h_signing_key: str = field(repr=False)
    smtp_relay_tls: str
    smtp_relay_ca_file: Path | None
    smtp_tls_cert_file: Path | None
    smtp_tls_key_file: Path | None
    dkim_selector: str
    dkim_domain: str
    dkim_private_key_file: Path | None
    lawyers: Mapping[str, tuple[str, ...]]
    secret_keys: tuple[str, ...] = field(repr=False)
    max_request_bytes: int
    max_field_chars: int
    max_message_bytes: int
    listeners: Listeners
    relay_dot_timeout_seconds: float
    outbox_retry_seconds: float
    outbox_max_attempts: int
    outbox_backoff_seconds: float
    outbox_max_backoff_seconds: float
    outbox_delay_notice_seconds: float
    lease_seconds: float
    heartbeat_seconds: float
    ready_role_seconds: float
    worker_poll_seconds: float
    trusted_authserv_id: str
    require_authenticated_sender: bool
    # "" the system's resolver, "off" no lookups, else "ip:port" (gateway.settings.sender_auth).
    dns_resolver: str
    arc_trusted_sealers: frozenset[str]
    # Lawyer domain -> dmarc, dkim or token; a domain not listed follows the default rule.
    sender_policy: Mapping[str, str]
    receipts: bool
    reminders: Mapping[str, float | None]
    escalation: Mapping[str, tuple[str, ...]]
    lawyer: LawyerSettings
    escalate_after: int
    deadline_closes: bool
    scheduler_seconds: float
    retention: Retention
    wait_max_seconds: float
    events_max_seconds: float
    task_ttl_seconds: float
    ready_outbox_seconds: float
    api_keys: tuple[tuple[str, str], ...] = field(repr=False)
    rate_limit_per_minute: int
    token_failures_per_hour: int
    webhook_secrets: tuple[str, ...] = field(repr=False)
    webhook_allow_private: bool
    webhook_retry_seconds: float
    webhook_timeout_seconds: float
    # A lawyer's other addresses (HFA_LAWYERS and HFA_ESCALATION ``a@x|a2@y`` entries).
    lawyer_aliases: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def lawyers_for(self, category: str) -> tuple[str, ...]:
        return self.lawyers.get(category) or self.lawyers.get("*", ())

    def escalation_for(self, category: str) -> tuple[str, ...]:
        return self.escalation.get(category) or self.escalation.get("*", ())

    def aliases_of(self, address: str) -> frozenset[str]:
        return self.lawyer_aliases.get(address.strip().lower(), frozenset())

    def all_lawyers(self) -> frozenset[str]:
        return frozenset(a.lower() for addrs in self.lawyers.values() for a in addrs)

    def with_overrides(self, **values: str) -> Config:
        merged = dict(self.raw)
        merged.update(values)
        return load_config(env={}, file_values=merged)

    def public_settings(self) -> dict[str, str]:
        """Settings safe to log or audit: secrets are replaced by the audit log's marker."""
        return {
            name: ("[redacted]" if BY_NAME[name].secret and value else value)
            for name, value in self.raw.items()
        }


# The composite attributes the table's dotted ``into`` names fill, innermost first.
_COMPOSITES: dict[str, Callable[..., Any]] = {
    "listeners.smtp": Listening,
    "listeners.http": Listening,
    "listeners": Listeners,
    "lawyer": LawyerSettings,
}


def _assemble(values: dict[str, Any]) -> dict[str, Any]:
    """Turn ``{"lawyer.timezone": ..., ...}`` into ``{"lawyer": LawyerSettings(...)}``."""
    for name, build in _COMPOSITES.items():
        prefix = name + "."
        parts = [key for key in values if key.startswith(prefix) and "." not in key[len(prefix) :]]
        values[name] = build(**{key[len(prefix) :]: values.pop(key) for key in parts})
    return values


def _raw_values(env: Mapping[str, str], file_values: Mapping[str, str]) -> dict[str, str]:
    """Each setting's text: environment over file over default; unknown HFA_* names
    ignored with a warning."""
    values: dict[str, str] = {}
    for s in SETTINGS:
        value = file_values.get(s.name, s.text)
        values[s.name] = env.get(s.env, value)
    for key in env:
        if (
            key.startswith("HFA_")
            and key[4:].lower() not in BY_NAME
            and not key.startswith("HFA_TEST_")
        ):
            warn_unknown(key, key[4:].lower(), BY_NAME)
    return values


def load_config(
    env: Mapping[str, str] | None = None, file_values: Mapping[str, str] | None = None
) -> Config:
    """Resolve every setting: environment over file over default."""
    raw = _raw_values(os.environ if env is None else env, file_values or {})
    read = {s.name: s.parse(raw[s.name]) for s in SETTINGS}
    placed = {s.field: read[s.name] for s in SETTINGS if s.field is not None}
    return Config(raw=raw, **_assemble(placed | combine(read, raw)))
