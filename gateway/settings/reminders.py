"""HFA_REMINDERS: how often a request that waits for its first answer is recalled, per urgency."""

from __future__ import annotations

from gateway.errors import ConfigError
from gateway.settings.durations import seconds_of

# What HFA_REMINDERS names replaces the default for that urgency only: 'routine=1d'
# must not switch off the blocking and soon reminders.
_DEFAULT_REMINDERS: dict[str, float | None] = {"blocking": 7200.0, "soon": 86400.0, "routine": None}


def _parse_duration(text: str, setting: str) -> float | None:
    """``90s``, ``30m``, ``2h``, ``1d`` (or plain seconds) -> seconds; ``off`` -> None."""
    if text.strip().lower() in ("", "off", "none", "0"):
        return None
    seconds = seconds_of(text)
    if seconds is None or seconds <= 0:
        raise ConfigError(f"{setting}: expected a duration like 2h, 30m or off, got {text!r}")
    return seconds


def parse_reminders(value: str, setting: str) -> dict[str, float | None]:
    """``blocking=2h,soon=24h,routine=off`` -> {urgency: seconds or None}."""
    table = dict(_DEFAULT_REMINDERS)
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        urgency, sep, interval = part.partition("=")
        if not sep or urgency.strip() not in table:
            raise ConfigError(
                f"{setting}: expected URGENCY=DURATION with URGENCY one of blocking, soon, "
                f"routine, got {part!r}"
            )
        table[urgency.strip()] = _parse_duration(interval, f"{setting} ({urgency.strip()})")
    return table
