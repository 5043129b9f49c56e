"""Who the lawyers are and what they receive: the readers of their settings.

HFA_LAWYERS and HFA_ESCALATION name the lawyers; the rest shape their emails and
are kept together as one ``Config.lawyer`` value (``LawyerSettings``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from gateway.errors import ConfigError
from gateway.i18n import LANGUAGES
from gateway.settings.categories import by_category
from gateway.settings.durations import seconds_of
from gateway.settings.policies import ApprovalSettings

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_ADDRESS = re.compile(rf"[^@\s<>()\[\],;:\"]+@{_LABEL}(?:\.{_LABEL})*")


def check_address(address: str, setting: str) -> None:
    """Refuse, naming ``setting``, what is not a bare address (``name@domain``)."""
    if not _ADDRESS.fullmatch(address):
        raise ConfigError(
            f"{setting}: {address!r} is not an email address (expected name@domain, several "
            "separated by commas)"
        )


@dataclass(frozen=True)
class LawyerSettings:
    from_name: str  # HFA_MAIL_FROM_NAME: the display name on the From of lawyers' emails
    timezone: str  # HFA_DISPLAY_TIMEZONE: where times and deadlines are shown
    reminder_cap: int  # HFA_REMINDER_CAP: the most reminders one request gets
    # HFA_CORRECTION_WINDOW in seconds: how long a typed decision waits (0: not at all).
    correction_window_seconds: float = 0.0
    language: str = "en"  # HFA_LANGUAGE: the language of a lawyer's emails by default
    # HFA_LAWYER_LANGUAGES: a lawyer's address (lower case) -> the language of their emails
    languages: Mapping[str, str] = field(default_factory=dict)
    # HFA_POLICIES, HFA_APPROVER_GROUPS, HFA_DELEGATES: who must approve, who stands in.
    approval: ApprovalSettings = field(default_factory=ApprovalSettings)
    # HFA_WEAK_SENDER_DECISIONS: a decision proven by the reply address alone is held and
    # confirmed by the lawyer (confirm) or recorded (record).
    weak_sender_decisions: str = "confirm"


def _language(value: str, setting: str) -> str:
    base = value.strip().replace("_", "-").split("-", 1)[0].lower()
    if base not in LANGUAGES:
        raise ConfigError(
            f"{setting}: unknown language {value.strip()!r} (one of {', '.join(LANGUAGES)})"
        )
    return base


# Alike in shape to settings.policies.parse_delegates (a list split, entries checked),
# each its own syntax and its own error words.
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


def display_timezone(text: str, setting: str) -> str:
    zone = text.strip() or "UTC"
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            f"{setting}: unknown time zone {zone!r} (an IANA name like Europe/Berlin)"
        ) from None
    return zone


def language(text: str, setting: str) -> str:
    """HFA_LANGUAGE: empty is English, as the default."""
    return _language(text or "en", setting)


def from_name(text: str, _setting: str) -> str:
    """The display name on the From, on one line with single spaces."""
    return " ".join(text.split())


def correction_window(text: str) -> float:
    """``2m``, ``90s``, ``1h`` or plain seconds; ``0``/``off``: no window."""
    if text.strip().lower() in ("", "0", "off", "none"):
        return 0.0
    seconds = seconds_of(text, units="smh")
    if seconds is None or not 0 <= seconds < float("inf"):
        raise ConfigError(
            f"HFA_CORRECTION_WINDOW: expected a duration like 2m, 90s or 0, got {text!r}"
        )
    return seconds


def approval_aliases(values: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """A person's other addresses, written ``a@x|a2@y`` in the rules or the groups."""
    aliases: dict[str, set[str]] = {}
    text = f"{values['approver_groups']};{values['policies']}"
    for word in re.split(r"[\s,;=+]+", text):
        names = [a.strip().lower() for a in word.split("|") if a.strip()]
        if len(names) > 1:
            aliases.setdefault(names[0], set()).update(names[1:])
    return {person: frozenset(others) for person, others in aliases.items()}


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


def parse_lawyers(value: str) -> dict[str, tuple[str, ...]]:
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


def parse_escalation(value: str) -> dict[str, tuple[str, ...]]:
    if not value.strip():
        return {}
    try:
        return parse_lawyers(value)
    except ConfigError as exc:
        raise ConfigError(str(exc).replace("HFA_LAWYERS", "HFA_ESCALATION")) from None
