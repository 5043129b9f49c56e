"""``hfa settings``: the values a command runs with, where each came from, secrets kept back."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from gateway.settings.config import load_config
from tests.clienv import run

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in [k for k in os.environ if k.startswith("HFA_") and not k.startswith("HFA_TEST_")]:
        monkeypatch.delenv(key)


def test_settings_show_effective_values_and_their_source(
    clean_env: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("HFA_REPLY_DOMAIN", "foo.example")
    monkeypatch.setenv("HFA_SMTP_RELAY_PASSWORD", "hunter2-relay-password")
    config = tmp_path / "hfa.toml"
    config.write_text('mail_from = "desk@foo.example"\nreply_domain = "file.example"\n')

    code, out, _ = run(capsys, "--config", str(config), "settings")
    assert code == 0
    assert "HFA_REPLY_DOMAIN = foo.example  (env)" in out  # the environment wins over the file
    assert f"HFA_MAIL_FROM = desk@foo.example  (file {config})" in out
    assert "HFA_HTTP_BIND = 127.0.0.1:8080  (default)" in out
    assert "HFA_SMTP_RELAY_PASSWORD = set  (env)" in out
    assert "hunter2" not in out

    code, out, _ = run(capsys, "settings", "--json")
    rows = {r["env"]: r for r in json.loads(out)}
    assert rows["HFA_REPLY_DOMAIN"]["value"] == "foo.example"
    assert rows["HFA_SECRET_KEYS"] == rows["HFA_SECRET_KEYS"] | {
        "value": "unset",
        "source": "default",
    }


def test_the_readme_names_the_redaction_word_the_log_writes() -> None:
    shown = load_config(env={"HFA_SMTP_RELAY_PASSWORD": "pw"}).public_settings()
    word = shown["smtp_relay_password"]
    row = next(line for line in README.read_text().splitlines() if "`gateway.started`" in line)
    assert re.search(r"secrets shown as `([^`]+)`", row).group(1) == word  # type: ignore[union-attr]
