"""Times as a lawyer reads them: local, in the lawyer's language, with the time left.

"Fri 4 Dec 2026, 23:59 CET" instead of "2026-12-04T22:59:59Z", and
"in 3 days" / "2 hours ago" next to a deadline. The zone is the
``HFA_DISPLAY_TIMEZONE`` setting (an IANA name such as Europe/Berlin); day
and month names and the "in 3 days" words come from Babel's locale data for
the language the email is written in.

A deadline is shown as the agent gave it: a date alone ("2026-12-04") is that
day, with no time invented; a date-time is shown in the display zone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.dates import format_date, format_timedelta

from gateway import i18n
from gateway.errors import ConfigError
from gateway.i18n import _

_DATE_ONLY = re.compile(r"\s*(\d{4})-(\d{2})-(\d{2})\s*")


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name.strip() or "UTC")
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(f"HFA_DISPLAY_TIMEZONE: unknown time zone {name!r}") from exc


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def local_iso(value: object, tz: ZoneInfo) -> str:
    """An RFC 3339 time (as the contract writes them) as ``local`` shows it; else as given."""
    try:
        return local(datetime.fromisoformat(str(value)), tz)
    except ValueError:
        return str(value)


# Formatted days and spans are kept per language: every email shows a few, most of
# them the same days and spans as the emails before it, and Babel's formatting of one
# cost more than the rest of the email's dates and words together.
_REMEMBERED = 4096


def local(at: datetime, tz: ZoneInfo, *, seconds: bool = False) -> str:
    """``Fri 4 Dec 2026, 08:45 CET`` (in German ``Fr. 4 Dez. 2026, 08:45 CET``).

    Babel's pattern ``EEE d MMM y, HH:mm[:ss]``: the day as :func:`day` writes it,
    then the time in two-digit fields (every language here writes Latin digits).
    """
    moment = _aware(at).astimezone(tz)
    clock = f"{moment:%H:%M:%S}" if seconds else f"{moment:%H:%M}"
    return f"{_day(moment.date(), True, i18n.current())}, {clock} {moment.tzname()}"


def day(on: date, *, year: bool = True) -> str:
    """``Fri 4 Dec 2026`` (or ``Fri 4 Dec``)."""
    return _day(on, year, i18n.current())


@lru_cache(maxsize=_REMEMBERED)
def _day(on: date, year: bool, language: str) -> str:
    pattern = "EEE d MMM y" if year else "EEE d MMM"
    return format_date(on, pattern, locale=i18n.locale_of(language))


def date_only(raw: object) -> date | None:
    """The day of a deadline the agent gave as a date alone (``2026-12-04``)."""
    match = _DATE_ONLY.fullmatch(raw) if isinstance(raw, str) else None
    if match is None:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def _span(delta: timedelta, direction: bool) -> str:
    return _span_in(delta, direction, i18n.current())


@lru_cache(maxsize=_REMEMBERED)
def _span_in(delta: timedelta, direction: bool, language: str) -> str:
    return format_timedelta(
        delta, add_direction=direction, format="long", locale=i18n.locale_of(language)
    )


def left(deadline: datetime, now: datetime) -> str:
    """``in 3 days`` or ``2 hours ago``."""
    return _span(_aware(deadline) - _aware(now), True)


@dataclass(frozen=True)
class Deadline:
    """A deadline as the lawyer reads it."""

    shown: str  # "Fri 4 Dec 2026" or "Tue 1 Dec 2026, 21:09 CET"
    left: str  # "in 3 days", "2 min ago", "today"
    passed: bool
    tag: str  # for a subject: "due Fri 4 Dec", "due today 14:00", "OVERDUE"


def deadline(raw: object, at: datetime, now: datetime, tz: ZoneInfo) -> Deadline:
    """The deadline ``at`` (stored in UTC) as the agent gave it (``raw``)."""
    today = _aware(now).astimezone(tz).date()
    on = date_only(raw)
    if on is not None:
        # The whole of that day, wherever the lawyer reads it.
        end = datetime.combine(on + timedelta(days=1), time(0), tzinfo=tz)
        passed = end <= _aware(now)
        if passed:
            return Deadline(day(on), left(end, now), True, _("OVERDUE"))
        if on == today:
            return Deadline(day(on), _("today"), False, _("due today"))
        if on == today + timedelta(days=1):
            return Deadline(day(on), _("tomorrow"), False, _("due tomorrow"))
        # Counted in calendar days: on a Wednesday, Friday is "in 2 days", whatever the hour.
        days = _span(timedelta(days=(on - today).days), True)
        return Deadline(day(on), days, False, _due(day(on, year=False)))
    passed = _aware(at) <= _aware(now)
    end_at = _aware(at).astimezone(tz)
    if passed:
        tag = _("OVERDUE")
    elif end_at.date() == today:
        tag = _("due today %(time)s") % {"time": f"{end_at:%H:%M}"}
    elif end_at.date() == today + timedelta(days=1):
        tag = _("due tomorrow %(time)s") % {"time": f"{end_at:%H:%M}"}
    else:
        tag = _due(day(end_at.date(), year=False))
    return Deadline(local(at, tz), left(at, now), passed, tag)


def _due(on: str) -> str:
    return _("due %(day)s") % {"day": on}


def due_tag(deadline_at: datetime, now: datetime, tz: ZoneInfo, raw: object = None) -> str:
    """A short tag for a subject: ``due today 14:00``, ``due Fri 4 Dec``, ``OVERDUE``."""
    return deadline(raw, deadline_at, now, tz).tag
