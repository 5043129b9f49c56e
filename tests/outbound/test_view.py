"""What the lawyer's email shows: counts written as Babel writes them, in every language."""

from __future__ import annotations

import pytest
from babel.numbers import format_decimal

from gateway import i18n
from gateway.outbound.view import _count


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_counts_read_as_babel_writes_them(language: str) -> None:
    with i18n.speaking(language):
        for n in [*range(0, 1001), 1234, 98765, 1234567]:
            assert _count(n) == format_decimal(n, locale=i18n.locale()), n
