"""Durations as the settings write them, read one way for every setting."""

from __future__ import annotations

import pytest

from gateway.settings.durations import seconds_of


@pytest.mark.parametrize(
    ("text", "units", "seconds"),
    [
        ("90s", "smhd", 90.0),
        ("2m", "smhd", 120.0),
        (" 2H ", "smhd", 7200.0),
        ("1d", "smhd", 86400.0),
        ("45", "smhd", 45.0),
        ("0.5m", "smhd", 30.0),
        ("1d", "smh", None),  # a unit the setting does not take is no duration
        ("", "smhd", None),
        ("soon", "smhd", None),
        ("-5m", "smhd", -300.0),  # the caller's bounds refuse it, with its own message
    ],
)
def test_seconds_of(text: str, units: str, seconds: float | None) -> None:
    assert seconds_of(text, units) == seconds
