from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.errors import ConfigError
from gateway.settings.config import load_config, read_config_file
from gateway.settings.table import SETTINGS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_every_setting_is_documented_in_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    missing = [s.env for s in SETTINGS if f"`{s.env}`" not in text]
    assert missing == [], f"settings missing from README.md: {missing}"


def test_defaults_are_embedded_and_sane() -> None:
    config = load_config(env={})
    assert config.database_url.startswith("sqlite:///") and config.database_url.endswith(
        "var/gateway.db"
    )
    assert (config.http_host, config.http_port) == ("127.0.0.1", 8080)
    assert (config.smtp_host, config.smtp_port) == ("127.0.0.1", 2525)
    assert config.public_url == "http://127.0.0.1:8080"
    assert config.smtp_relay is None
    assert config.mail_from == "hfa-gateway@localhost"


def test_lawyers_per_category() -> None:
    config = load_config(env={"HFA_LAWYERS": "legal_review=a@x.example,b@x.example;*=c@x.example"})
    assert config.lawyers_for("legal_review") == ("a@x.example", "b@x.example")
    assert config.lawyers_for("physical_action") == ("c@x.example",)


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"HFA_HTTP_BIND": "8080"}, "HFA_HTTP_BIND"),
        ({"HFA_SMTP_RELAY": "relay.example"}, "HFA_SMTP_RELAY"),
        ({"HFA_LAWYERS": "legal_reveiw=a@x"}, "HFA_LAWYERS"),
        ({"HFA_MAX_MESSAGE_BYTES": "lots"}, "HFA_MAX_MESSAGE_BYTES"),
        ({"HFA_SMTP_RELAY_TLS": "maybe"}, "HFA_SMTP_RELAY_TLS"),
        ({"HFA_DISPLAY_TIMEZONE": "Mars/Olympus"}, "HFA_DISPLAY_TIMEZONE"),
        ({"HFA_REMINDER_CAP": "many"}, "HFA_REMINDER_CAP"),
    ],
)
def test_bad_settings_name_the_setting(env: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        load_config(env=env)


def test_toml_file_and_environment_precedence(tmp_path: Path) -> None:
    path = tmp_path / "hfa.toml"
    path.write_text('reply_domain = "file.example"\nreceipts = false\nhttp_bind = "0.0.0.0:9000"\n')
    values = read_config_file(path)
    config = load_config(env={"HFA_REPLY_DOMAIN": "env.example"}, file_values=values)
    assert config.reply_domain == "env.example"
    assert config.receipts is False
    assert config.http_port == 9000


def test_an_unknown_key_in_the_file_is_ignored_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A later release's settings do not stop this one (a rollback); a typo is named."""
    path = tmp_path / "hfa.toml"
    path.write_text('reply_domian = "x"\narchive_after = "90d"\nreply_domain = "y.example"\n')
    with caplog.at_level(logging.WARNING, logger="gateway.settings"):
        values = read_config_file(path)
    assert values == {"reply_domain": "y.example"}
    said = [r.getMessage() for r in caplog.records]
    assert f"{path}: 'reply_domian' is not a setting of hfa-gateway" in said[0]
    assert said[0].endswith("ignored; did you mean HFA_REPLY_DOMAIN?")
    assert "'archive_after' is not a setting" in said[1]


def test_an_unknown_variable_is_ignored_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="gateway.settings"):
        config = load_config(env={"HFA_REPLYDOMAIN": "x", "HFA_SALVAGE_AFTER": "90d"})
    assert config.reply_domain == "localhost"
    said = sorted(r.getMessage() for r in caplog.records)
    assert said[0].startswith("HFA_REPLYDOMAIN is not a setting of hfa-gateway ")
    assert said[0].endswith("did you mean HFA_REPLY_DOMAIN?")
    assert said[1].startswith("HFA_SALVAGE_AFTER is not a setting")


def test_a_newer_releases_setting_does_not_stop_a_command(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env |= {"HFA_DATA_DIR": str(tmp_path), "HFA_ARCHIVE_AFTER": "90d", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "gateway", "settings"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "HFA_ARCHIVE_AFTER is not a setting of hfa-gateway" in done.stderr
    assert "HFA_REPLY_DOMAIN = localhost" in done.stdout


def test_public_settings_hide_secrets() -> None:
    config = load_config(env={"HFA_SECRET_KEYS": "k1,k2", "HFA_SMTP_RELAY_PASSWORD": "pw"})
    shown = config.public_settings()
    assert shown["secret_keys"] == "[redacted]" and shown["smtp_relay_password"] == "[redacted]"
    assert "k1" not in repr(config) and "pw" not in repr(config)


def test_the_example_config_in_deploy_is_valid() -> None:
    example = README.parent / "deploy" / "hfa.toml.example"
    config = load_config(env={}, file_values=read_config_file(example))
    assert config.reply_domain == "reply.example.com"
    assert config.smtp_relay == ("127.0.0.1", 10587)  # Postfix's submission service
    assert config.lawyers_for("legal_review") == ("counsel@lawfirm.example",)


@pytest.mark.parametrize(
    ("value", "seconds"), [(None, 120.0), ("0", 0.0), ("off", 0.0), ("45s", 45.0), ("5m", 300.0)]
)
def test_the_correction_window_defaults_to_two_minutes(value: str | None, seconds: float) -> None:
    env = {"HFA_CORRECTION_WINDOW": value} if value is not None else {}
    assert load_config(env=env).lawyer.correction_window_seconds == seconds


def test_a_correction_window_that_is_not_a_duration_is_refused() -> None:
    with pytest.raises(ConfigError, match="HFA_CORRECTION_WINDOW"):
        load_config(env={"HFA_CORRECTION_WINDOW": "two minutes"})
