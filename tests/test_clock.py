"""The clock behind every schedule: UTC wall time, a frozen clock that moves only when told,
and moments written as the contract's date-time fields are."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from gateway.clock import Clock, FrozenClock, iso


def test_the_wall_clock_tells_utc_time() -> None:
    assert Clock().now().utcoffset() == timedelta(0)


def test_a_frozen_clock_moves_only_when_told() -> None:
    start = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
    clock = FrozenClock(start)
    assert clock.now() == start and clock.now() == start
    clock.advance(timedelta(hours=2, seconds=1))
    assert clock.now() == datetime(2026, 12, 7, 11, 0, 1, tzinfo=UTC)


def test_a_moment_is_written_in_utc_with_a_z_and_microseconds() -> None:
    paris = timezone(timedelta(hours=1))
    assert iso(datetime(2026, 12, 7, 10, 14, 34, 512000, tzinfo=paris)) == (
        "2026-12-07T09:14:34.512000Z"
    )
    assert iso(datetime(2026, 12, 7, 9, 0, tzinfo=UTC)) == "2026-12-07T09:00:00.000000Z"
