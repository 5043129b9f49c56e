"""Fixtures of the CLI tests: the CLI beside a running gateway, or where there is no gateway yet."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clienv import clear_settings, use_settings
from tests.conftest import LAWYER, REPLY_DOMAIN, Running


@pytest.fixture
def ops(running: Running, monkeypatch: pytest.MonkeyPatch) -> Running:
    """The CLI sees the settings of the running gateway, as on the same host."""
    use_settings(monkeypatch, running.services.config.raw)
    monkeypatch.setenv("USER", "ops-on-call")
    return running


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Settings of a gateway whose data directory holds nothing yet."""
    clear_settings(monkeypatch)
    data_dir = tmp_path / "var"
    monkeypatch.setenv("HFA_DATA_DIR", str(data_dir))
    monkeypatch.setenv("HFA_LAWYERS", LAWYER)
    monkeypatch.setenv("HFA_REPLY_DOMAIN", REPLY_DOMAIN)
    return data_dir
