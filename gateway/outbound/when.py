"""Times as a lawyer reads them: local, with the zone, and the time left.

"Fri 4 Dec 2026, 23:59 CET" instead of "2026-12-04T22:59:59Z", and
"in 3 days" / "passed 2 hours ago" next to a deadline. The zone is the
``HFA_DISPLAY_TIMEZONE`` setting (an IANA name such as Europe/Berlin).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from gateway.errors import ConfigError


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name.strip() or "UTC")
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(f"HFA_DISPLAY_TIMEZONE: unknown time zone {name!r}") from exc


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def local(at: datetime, tz: ZoneInfo) -> str:
    """``Fri 4 Dec 2026, 08:45 CET``."""
    moment = _aware(at).astimezone(tz)
    return f"{moment:%a} {moment.day} {moment:%b %Y}, {moment:%H:%M} {moment.tzname()}"


def _amount(delta: timedelta) -> str:
    seconds = int(abs(delta.total_seconds()))
    if seconds >= 2 * 86400:
        return f"{seconds // 86400} days"
    if seconds >= 2 * 3600:
        return f"{seconds // 3600} hours"
    if seconds >= 3600:
        return f"1 hour {seconds % 3600 // 60} min"
    return f"{max(1, seconds // 60)} min"


def left(deadline: datetime, now: datetime) -> str:
    """``in 3 days`` or ``passed 2 hours ago``."""
    delta = _aware(deadline) - _aware(now)
    if delta.total_seconds() > 0:
        return f"in {_amount(delta)}"
    return f"passed {_amount(delta)} ago"


def due_tag(deadline: datetime, now: datetime, tz: ZoneInfo) -> str:
    """A short tag for a subject: ``due today 14:00``, ``due 4 Dec``, ``OVERDUE``."""
    if _aware(deadline) <= _aware(now):
        return "OVERDUE"
    end = _aware(deadline).astimezone(tz)
    today = _aware(now).astimezone(tz).date()
    if end.date() == today:
        return f"due today {end:%H:%M}"
    if end.date() == today + timedelta(days=1):
        return f"due tomorrow {end:%H:%M}"
    return f"due {end.day} {end:%b}"
