"""The current time, behind a seam so schedules can be tested with a controlled clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class Clock:
    """Wall-clock UTC time."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FrozenClock(Clock):
    """A clock that moves only when told to (tests and ``hfa demo``)."""

    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> None:
        self._now += delta


def iso(moment: datetime) -> str:
    """RFC 3339 UTC with a Z, as the contract's date-time fields are written."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
