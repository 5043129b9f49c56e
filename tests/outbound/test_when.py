"""A deadline as the lawyer reads it: a date alone is that whole day, counted in days."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from gateway.outbound import when

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.mark.parametrize(
    ("now", "shown_left"),
    [
        # Wednesday morning and Wednesday late evening: Friday is two days away either way.
        (datetime(2026, 12, 2, 8, 37, tzinfo=UTC), "in 2 days"),
        (datetime(2026, 12, 2, 22, 30, tzinfo=UTC), "in 2 days"),
        (datetime(2026, 11, 30, 9, 0, tzinfo=UTC), "in 4 days"),
    ],
)
def test_a_date_alone_is_counted_in_calendar_days(now: datetime, shown_left: str) -> None:
    stored = datetime(2026, 12, 4, 22, 59, 59, tzinfo=UTC)
    shown = when.deadline("2026-12-04", stored, now, BERLIN)
    assert shown.shown == "Fri 4 Dec 2026"
    assert shown.left == shown_left
    assert shown.tag == "due Fri 4 Dec"
