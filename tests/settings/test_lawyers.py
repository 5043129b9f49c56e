"""HFA_LAWYERS: the lawyers per category, and a lawyer's other addresses after "|" (mail goes
to the first only)."""

from __future__ import annotations

from pathlib import Path

from gateway.settings.config import load_config
from tests.conftest import make_config


def test_aliases_are_read_per_lawyer_and_never_mailed(tmp_path: Path) -> None:
    config = make_config(
        tmp_path,
        lawyers="legal_review=counsel@firm.test|Jane.Home@mail.test|js@other.test,b@firm.test;"
        "*=gc@firm.test",
        escalation="*=head@firm.test|head.mobile@mail.test",
    )
    assert config.lawyers_for("legal_review") == ("counsel@firm.test", "b@firm.test")
    assert config.lawyers_for("other") == ("gc@firm.test",)
    assert config.aliases_of("COUNSEL@firm.test") == {"jane.home@mail.test", "js@other.test"}
    assert config.aliases_of("b@firm.test") == frozenset()
    assert config.aliases_of("head@firm.test") == {"head.mobile@mail.test"}


def test_plain_list_with_an_alias(tmp_path: Path) -> None:
    config = make_config(tmp_path, lawyers="counsel@firm.test|jane@home.test, b@firm.test")
    assert config.lawyers_for("legal_review") == ("counsel@firm.test", "b@firm.test")
    assert config.aliases_of("counsel@firm.test") == {"jane@home.test"}


def test_lawyers_per_category() -> None:
    config = load_config(env={"HFA_LAWYERS": "legal_review=a@x.example,b@x.example;*=c@x.example"})
    assert config.lawyers_for("legal_review") == ("a@x.example", "b@x.example")
    assert config.lawyers_for("physical_action") == ("c@x.example",)
