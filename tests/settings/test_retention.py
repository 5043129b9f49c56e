"""HFA_RETENTION as written: kinds and durations, and what a mistake is told."""

from __future__ import annotations

import pytest

from gateway.errors import ConfigError
from gateway.settings.config import load_config
from gateway.settings.retention import Retention, parse_retention


def test_each_kind_takes_a_duration_and_a_kind_not_named_is_kept_for_ever() -> None:
    assert parse_retention("raw=90d, attachments=12h,texts=3600") == Retention(
        raw=90 * 86400.0, attachments=12 * 3600.0, texts=3600.0
    )
    assert parse_retention("texts=730d") == Retention(texts=730 * 86400.0)
    assert parse_retention("") == Retention()
    assert Retention().shortest() is None
    assert parse_retention("raw=2d,texts=1d").shortest() == 86400.0


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("mail=90d", "got 'mail=90d'"),
        ("raw", "got 'raw'"),
        ("raw=soon", "got 'soon' for raw"),
        ("texts=0", "got '0' for texts"),
        ("raw=1d,raw=2d", "raw is named twice"),
    ],
)
def test_a_mistake_names_the_setting_and_what_it_expects(text: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(env={"HFA_LAWYERS": "counsel@lawfirm.example", "HFA_RETENTION": text})
    assert str(caught.value).startswith("HFA_RETENTION: ")
    assert said in str(caught.value)
