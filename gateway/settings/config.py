"""Resolved settings: each row of the settings table read, checked and typed once.

Settings come from ``HFA_*`` environment variables and, optionally, a TOML
file (``hfa serve --config FILE``); the environment wins over the file. A value
that cannot be read is refused with the setting's name and what was expected.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.errors import ConfigError
from gateway.settings.durations import seconds_of
from gateway.settings.guard import Listeners, guard_fields
from gateway.settings.lawyers import (
    LawyerSettings,
    approval_aliases,
    check_address,
    lawyer_settings,
)
from gateway.settings.mail_auth import mail_auth_fields
from gateway.settings.retention import Retention, parse_retention
from gateway.settings.sender_auth import sender_auth_fields
from gateway.settings.table import SETTINGS, by_category
from gateway.settings.unknown import read_config_file as read_config_file
from gateway.settings.unknown import warn_unknown

_BY_NAME = {s.name: s for s in SETTINGS}


def _split_host_port(value: str, setting: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ConfigError(f"{setting}: expected host:port, got {value!r}")
    return host.strip("[]"), int(port)


def _primary(entry: str) -> str:
    """``a@x|a2@y`` -> ``a@x``: mail goes to the first address, the others are aliases.

    Every address of the entry must be one (``name@domain``): a lawyer who cannot be
    written to would only show up when the first request to them bounced.
    """
    for address in (a.strip() for a in entry.split("|")):
        if address:
            check_address(address, "HFA_LAWYERS")
    return entry.split("|", 1)[0].strip()


def parse_aliases(value: str) -> dict[str, frozenset[str]]:
    """{lawyer address: the lawyer's other addresses}, from ``a@x|a2@y|a3@z`` entries.

    A reply from an alias is the lawyer's; requests are only ever sent to the first.
    """
    aliases: dict[str, set[str]] = {}
    for part in value.split(";"):
        addrs = part.partition("=")[2] if "=" in part else part
        for entry in addrs.split(","):
            names = [a.strip().lower() for a in entry.split("|") if a.strip()]
            if len(names) > 1:
                aliases.setdefault(names[0], set()).update(names[1:])
    return {primary: frozenset(others) for primary, others in aliases.items()}


def _parse_lawyers(value: str) -> dict[str, tuple[str, ...]]:
    """``a@x,b@x`` or ``legal_review=a@x;*=b@x`` -> {category or '*': addresses}.

    An entry may carry the lawyer's other addresses after ``|`` (see ``parse_aliases``).
    """
    table: dict[str, tuple[str, ...]] = {}
    if "=" not in value:
        table["*"] = tuple(_primary(a) for a in value.split(",") if _primary(a))
        return table
    for key, addrs in by_category(value, "HFA_LAWYERS", "addr,addr"):
        table[key] = tuple(_primary(a) for a in addrs.split(",") if _primary(a))
    return table


def _parse_api_keys(value: str) -> tuple[tuple[str, str], ...]:
    """``name:key,name:key`` -> ((name, key), ...); the error never repeats a key."""
    keys: list[tuple[str, str]] = []
    for index, part in enumerate(p.strip() for p in value.split(",")):
        if not part:
            continue
        name, sep, key = part.partition(":")
        if not sep or not name.strip() or len(key.strip()) < 16:
            raise ConfigError(
                f"HFA_API_KEYS: entry {index + 1} must be NAME:KEY with a key of at least "
                "16 characters"
            )
        keys.append((name.strip(), key.strip()))
    return tuple(keys)


def _parse_webhook_secrets(value: str) -> tuple[str, ...]:
    secrets = tuple(s.strip() for s in value.split(",") if s.strip())
    for index, secret in enumerate(secrets):
        if not secret.startswith("whsec_") or len(secret) < 20:
            raise ConfigError(
                f"HFA_WEBHOOK_SECRET: secret {index + 1} must be in the whsec_<base64> form"
            )
    return secrets


def _parse_duration(text: str, setting: str) -> float | None:
    """``90s``, ``30m``, ``2h``, ``1d`` (or plain seconds) -> seconds; ``off`` -> None."""
    if text.strip().lower() in ("", "off", "none", "0"):
        return None
    seconds = seconds_of(text)
    if seconds is None or seconds <= 0:
        raise ConfigError(f"{setting}: expected a duration like 2h, 30m or off, got {text!r}")
    return seconds


# What HFA_REMINDERS names replaces the default for that urgency only: 'routine=1d'
# must not switch off the blocking and soon reminders.
_DEFAULT_REMINDERS: dict[str, float | None] = {"blocking": 7200.0, "soon": 86400.0, "routine": None}


def _parse_reminders(value: str) -> dict[str, float | None]:
    """``blocking=2h,soon=24h,routine=off`` -> {urgency: seconds or None}."""
    table = dict(_DEFAULT_REMINDERS)
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        urgency, sep, interval = part.partition("=")
        if not sep or urgency.strip() not in table:
            raise ConfigError(
                f"HFA_REMINDERS: expected URGENCY=DURATION with URGENCY one of blocking, soon, "
                f"routine, got {part!r}"
            )
        table[urgency.strip()] = _parse_duration(interval, f"HFA_REMINDERS ({urgency.strip()})")
    return table


def _parse_escalation(value: str) -> dict[str, tuple[str, ...]]:
    if not value.strip():
        return {}
    try:
        return _parse_lawyers(value)
    except ConfigError as exc:
        raise ConfigError(str(exc).replace("HFA_LAWYERS", "HFA_ESCALATION")) from None


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
            name: ("[redacted]" if _BY_NAME[name].secret and value else value)
            for name, value in self.raw.items()
        }


def _int(values: Mapping[str, str], name: str) -> int:
    try:
        return int(values[name])
    except ValueError:
        raise ConfigError(
            f"{_BY_NAME[name].env}: expected a whole number, got {values[name]!r}"
        ) from None


def _float(values: Mapping[str, str], name: str) -> float:
    try:
        return float(values[name])
    except ValueError:
        raise ConfigError(
            f"{_BY_NAME[name].env}: expected a number, got {values[name]!r}"
        ) from None


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


def _flag(values: Mapping[str, str], name: str) -> bool:
    """The one reading of an on/off setting; anything else is refused, not guessed."""
    value = values[name].strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"{_BY_NAME[name].env}: expected 1 or 0 (true/false, yes/no), got {value!r}")


def _raw_values(env: Mapping[str, str], file_values: Mapping[str, str]) -> dict[str, str]:
    """Each setting's text: environment over file over default; unknown HFA_* names
    ignored with a warning."""
    values: dict[str, str] = {}
    for s in SETTINGS:
        value = file_values.get(s.name, s.default)
        values[s.name] = env.get(s.env, value)
    for key in env:
        if (
            key.startswith("HFA_")
            and key[4:].lower() not in _BY_NAME
            and not key.startswith("HFA_TEST_")
        ):
            warn_unknown(key, key[4:].lower(), _BY_NAME)
    return values


def load_config(
    env: Mapping[str, str] | None = None, file_values: Mapping[str, str] | None = None
) -> Config:
    """Resolve every setting: environment over file over default."""
    values = _raw_values(os.environ if env is None else env, file_values or {})
    data_dir = Path(values["data_dir"]).expanduser()
    http_host, http_port = _split_host_port(values["http_bind"], "HFA_HTTP_BIND")
    smtp_host, smtp_port = _split_host_port(values["smtp_bind"], "HFA_SMTP_BIND")
    relay = values["smtp_relay"].strip()
    tls = values["smtp_relay_tls"].strip().lower()
    if tls not in ("none", "starttls", "tls"):
        raise ConfigError(f"HFA_SMTP_RELAY_TLS: expected none, starttls or tls, got {tls!r}")
    lawyers = _parse_lawyers(values["lawyers"])
    if not any(lawyers.values()):
        raise ConfigError("HFA_LAWYERS: at least one lawyer address is required")
    reply_domain = values["reply_domain"].strip().lower()
    public_url = values["public_url"].strip().rstrip("/") or f"http://{http_host}:{http_port}"
    mail_from = values["mail_from"].strip() or f"hfa-gateway@{reply_domain}"
    config = Config(
        raw=values,
        data_dir=data_dir,
        database_url=values["database_url"].strip()
        or f"sqlite:///{(data_dir / 'gateway.db').as_posix()}",
        http_host=http_host,
        http_port=http_port,
        smtp_host=smtp_host,
        smtp_port=smtp_port,
        smtp_hostname=values["smtp_hostname"].strip(),
        public_url=public_url,
        reply_domain=reply_domain,
        mail_from=mail_from,
        smtp_relay=_split_host_port(relay, "HFA_SMTP_RELAY") if relay else None,
        smtp_relay_username=values["smtp_relay_username"],
        smtp_relay_password=values["smtp_relay_password"],
        a2h_signing_key=values["a2h_signing_key"],
        smtp_relay_tls=tls,
        **mail_auth_fields(values, mail_from),
        lawyers=lawyers,
        lawyer_aliases=_aliases(values),
        secret_keys=tuple(k.strip() for k in values["secret_keys"].split(",") if k.strip()),
        max_request_bytes=_int(values, "max_request_bytes"),
        max_field_chars=_int(values, "max_field_chars"),
        max_message_bytes=_int(values, "max_message_bytes"),
        **guard_fields(values),
        outbox_max_attempts=_int(values, "outbox_max_attempts"),
        **_timing(values),
        trusted_authserv_id=values["trusted_authserv_id"].strip(),
        **sender_auth_fields(values),
        receipts=_flag(values, "receipts"),
        reminders=_parse_reminders(values["reminders"]),
        escalation=_parse_escalation(values["escalation"]),
        lawyer=lawyer_settings(values),
        escalate_after=_int(values, "escalate_after"),
        deadline_closes=_flag(values, "deadline_closes"),
        scheduler_seconds=_float(values, "scheduler_seconds"),
        retention=parse_retention(values["retention"]),
        ready_outbox_seconds=_float(values, "ready_outbox_seconds"),
        api_keys=_parse_api_keys(values["api_keys"]),
        rate_limit_per_minute=_int(values, "rate_limit_per_minute"),
        token_failures_per_hour=_int(values, "token_failures_per_hour"),
        webhook_secrets=_parse_webhook_secrets(values["webhook_secret"]),
        webhook_allow_private=_flag(values, "webhook_allow_private"),
        webhook_retry_seconds=_float(values, "webhook_retry_seconds"),
        webhook_timeout_seconds=_float(values, "webhook_timeout_seconds"),
    )
    _check_timing(config)
    return config


# Seconds the outbox, leases and heartbeats run by, each read as a number.
_TIMING = (
    "outbox_retry_seconds",
    "outbox_backoff_seconds",
    "outbox_max_backoff_seconds",
    "outbox_delay_notice_seconds",
    "lease_seconds",
    "heartbeat_seconds",
    "ready_role_seconds",
    "worker_poll_seconds",
    "wait_max_seconds",
    "events_max_seconds",
    "task_ttl_seconds",
)


def _timing(values: Mapping[str, str]) -> dict[str, Any]:
    return {name: _float(values, name) for name in _TIMING}


def _aliases(values: Mapping[str, str]) -> dict[str, frozenset[str]]:
    return approval_aliases(values) | parse_aliases(f"{values['escalation']};{values['lawyers']}")


def _check_timing(config: Config) -> None:
    for name in (
        "lease_seconds",
        "heartbeat_seconds",
        "ready_role_seconds",
        "outbox_retry_seconds",
    ):
        if getattr(config, name) <= 0:
            raise ConfigError(f"{_BY_NAME[name].env}: expected a number above 0")
    if config.heartbeat_seconds * 2 > config.ready_role_seconds:
        raise ConfigError(
            "HFA_HEARTBEAT_SECONDS must be at most half of HFA_READY_ROLE_SECONDS, or a live "
            "process would be taken for a dead one between two heartbeats"
        )
