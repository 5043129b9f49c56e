"""Durations as the settings write them: ``90s``, ``30m``, ``2h``, ``1d`` or plain seconds.

One reading for every setting that takes a duration; each caller keeps its own
bounds and its own error message, which names the setting and what it expected.
"""

from __future__ import annotations

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def seconds_of(text: str, units: str = "smhd") -> float | None:
    """The seconds ``text`` names with one of ``units`` (plain numbers are seconds), or
    None when it is no number."""
    value = text.strip().lower()
    number, unit = (value[:-1], value[-1]) if value and value[-1] in units else (value, "s")
    try:
        return float(number) * UNITS[unit]
    except ValueError:
        return None
