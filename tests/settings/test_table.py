"""The settings table: typed defaults, the text they are shown as, and the README's copy."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest

from gateway.errors import ConfigError
from gateway.settings.config import Config, load_config
from gateway.settings.table import SETTINGS, markdown_table

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_table_is_the_settings_table() -> None:
    """Regenerate with ``python -c 'from gateway.settings.table import markdown_table as m;
    print(m())'`` and paste it under README's ## Settings."""
    assert markdown_table() in README.read_text(encoding="utf-8")


def test_each_setting_is_named_once() -> None:
    names = [s.name for s in SETTINGS]
    assert len(names) == len(set(names))


def test_every_row_lands_in_config_or_is_kept_as_text() -> None:
    fields = {f.name for f in dataclasses.fields(Config)}
    for s in SETTINGS:
        assert s.field is None or s.field.split(".")[0] in fields, s.name
    assert load_config(env={}).raw.keys() == {s.name for s in SETTINGS}


def test_a_typed_row_and_its_config_attribute_agree() -> None:
    """Config declares its attributes for the type checker; a typed row must fill its own
    with a value of the declared type."""
    hints = typing.get_type_hints(Config)
    checked = 0
    for s in SETTINGS:
        if s.read is None and s.field and "." not in s.field:
            assert hints[s.field] is type(s.default), s.name
            checked += 1
    assert checked > 20


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"HFA_MAX_FIELD_CHARS": "many"},
            "HFA_MAX_FIELD_CHARS: expected a whole number, got 'many'",
        ),
        ({"HFA_SCHEDULER_SECONDS": "soon"}, "HFA_SCHEDULER_SECONDS: expected a number, got 'soon'"),
        (
            {"HFA_RECEIPTS": "maybe"},
            "HFA_RECEIPTS: expected 1 or 0 (true/false, yes/no), got 'maybe'",
        ),
        ({"HFA_ACCESS_LOG": "maybe"}, "HFA_ACCESS_LOG: expected 1 or 0, got 'maybe'"),
        (
            {"HFA_SMTP_MAX_CONNECTIONS": "1.5"},
            "HFA_SMTP_MAX_CONNECTIONS: expected a number, got '1.5'",
        ),
        ({"HFA_LEASE_SECONDS": "0"}, "HFA_LEASE_SECONDS: expected a number above 0"),
    ],
)
def test_a_value_is_refused_by_its_rows_type(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(env=env)
    assert str(caught.value) == message
