"""A deadline as the lawyer reads it: a date alone is that whole day, counted in days."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from babel import Locale
from babel.dates import format_date, format_datetime, format_timedelta

from gateway import i18n
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


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_times_and_spans_read_as_babel_writes_them_in_every_language(language: str) -> None:
    # Days and spans are formatted once and remembered; a time is the remembered day and
    # two-digit fields. Each must be what Babel writes from the whole pattern.
    zones = (ZoneInfo("UTC"), BERLIN, ZoneInfo("America/St_Johns"), ZoneInfo("Asia/Kolkata"))
    start = datetime(2026, 1, 1, 0, 0, 7, tzinfo=UTC)
    with i18n.speaking(language):
        for step in range(0, 24 * 400, 37):
            at = start + timedelta(hours=step, minutes=step % 60)
            tz = zones[step % len(zones)]
            moment = at.astimezone(tz)
            for seconds, pattern in (
                (False, "EEE d MMM y, HH:mm"),
                (True, "EEE d MMM y, HH:mm:ss"),
            ):
                babel = format_datetime(moment, pattern, locale=Locale.parse(language))
                assert when.local(at, tz, seconds=seconds) == f"{babel} {moment.tzname()}"
            for year, pattern in ((True, "EEE d MMM y"), (False, "EEE d MMM")):
                assert when.day(moment.date(), year=year) == format_date(
                    moment.date(), pattern, locale=Locale.parse(language)
                )
            span = timedelta(seconds=step * 97 - 400_000)
            assert when.left(start + span, start) == format_timedelta(
                span, add_direction=True, format="long", locale=Locale.parse(language)
            )
