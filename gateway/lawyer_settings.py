"""The settings that shape what lawyers receive, read and checked together.

``gateway.config`` keeps them as one ``Config.lawyer`` value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from gateway.errors import ConfigError


@dataclass(frozen=True)
class LawyerSettings:
    from_name: str  # HFA_MAIL_FROM_NAME: the display name on the From of lawyers' emails
    timezone: str  # HFA_DISPLAY_TIMEZONE: where times and deadlines are shown
    reminder_cap: int  # HFA_REMINDER_CAP: the most reminders one request gets


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
    return LawyerSettings(" ".join(values["mail_from_name"].split()), zone, cap)
