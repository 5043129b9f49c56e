"""The settings that shape what lawyers receive, read and checked together.

``gateway.config`` keeps them as one ``Config.lawyer`` value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from gateway.errors import ConfigError
from gateway.i18n import LANGUAGES


@dataclass(frozen=True)
class LawyerSettings:
    from_name: str  # HFA_MAIL_FROM_NAME: the display name on the From of lawyers' emails
    timezone: str  # HFA_DISPLAY_TIMEZONE: where times and deadlines are shown
    reminder_cap: int  # HFA_REMINDER_CAP: the most reminders one request gets
    language: str = "en"  # HFA_LANGUAGE: the language of a lawyer's emails by default
    # HFA_LAWYER_LANGUAGES: a lawyer's address (lower case) -> the language of their emails
    languages: Mapping[str, str] = field(default_factory=dict)


def _language(value: str, setting: str) -> str:
    base = value.strip().replace("_", "-").split("-", 1)[0].lower()
    if base not in LANGUAGES:
        raise ConfigError(
            f"{setting}: unknown language {value.strip()!r} (one of {', '.join(LANGUAGES)})"
        )
    return base


def parse_languages(value: str) -> dict[str, str]:
    """``a@x=de,b@y=fr`` -> {"a@x": "de", "b@y": "fr"}."""
    table: dict[str, str] = {}
    for entry in (e.strip() for e in value.split(",")):
        if not entry:
            continue
        address, sep, language = entry.rpartition("=")
        if not sep or "@" not in address:
            raise ConfigError(f"HFA_LAWYER_LANGUAGES: expected address=language,..., got {entry!r}")
        table[address.strip().lower()] = _language(language, "HFA_LAWYER_LANGUAGES")
    return table


def lawyer_settings(values: Mapping[str, str]) -> LawyerSettings:
    zone = values["display_timezone"].strip() or "UTC"
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            f"HFA_DISPLAY_TIMEZONE: unknown time zone {zone!r} (an IANA name like Europe/Berlin)"
        ) from None
    try:
        cap = int(values["reminder_cap"])
    except ValueError:
        raise ConfigError(
            f"HFA_REMINDER_CAP: expected a whole number, got {values['reminder_cap']!r}"
        ) from None
    return LawyerSettings(
        " ".join(values["mail_from_name"].split()),
        zone,
        cap,
        _language(values.get("language", "en") or "en", "HFA_LANGUAGE"),
        parse_languages(values.get("lawyer_languages", "")),
    )
