"""The settings that shape what lawyers receive, read and checked together.

``gateway.config`` keeps them as one ``Config.lawyer`` value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from gateway.errors import ConfigError
from gateway.policy_text import ApprovalSettings, approval_settings


@dataclass(frozen=True)
class LawyerSettings:
    from_name: str  # HFA_MAIL_FROM_NAME: the display name on the From of lawyers' emails
    timezone: str  # HFA_DISPLAY_TIMEZONE: where times and deadlines are shown
    reminder_cap: int  # HFA_REMINDER_CAP: the most reminders one request gets
    # HFA_POLICIES, HFA_APPROVER_GROUPS, HFA_DELEGATES: who must approve, who stands in.
    approval: ApprovalSettings = field(default_factory=ApprovalSettings)


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
    name = " ".join(values["mail_from_name"].split())
    return LawyerSettings(name, zone, cap, approval_settings(values))


def approval_aliases(values: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """A person's other addresses, written ``a@x|a2@y`` in the rules or the groups."""
    aliases: dict[str, set[str]] = {}
    text = f"{values['approver_groups']};{values['policies']}"
    for word in re.split(r"[\s,;=+]+", text):
        names = [a.strip().lower() for a in word.split("|") if a.strip()]
        if len(names) > 1:
            aliases.setdefault(names[0], set()).update(names[1:])
    return {person: frozenset(others) for person, others in aliases.items()}
