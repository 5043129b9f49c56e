"""One row of the settings table: its typed default reads back from its text, shown as an operator writes it."""

from __future__ import annotations

import pytest

from gateway.settings.setting import Setting, text_of
from gateway.settings.table import SETTINGS


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.read is None], ids=lambda s: s.name)
def test_a_typed_default_reads_back_from_its_text(setting: Setting) -> None:
    assert setting.parse(setting.text) == setting.default
    assert type(setting.parse(setting.text)) is type(setting.default)


@pytest.mark.parametrize(
    ("value", "text"), [(600.0, "600"), (0.25, "0.25"), (True, "1"), (False, "0"), (20, "20")]
)
def test_a_default_is_shown_as_an_operator_writes_it(value: float | bool, text: str) -> None:
    assert text_of(value) == text
