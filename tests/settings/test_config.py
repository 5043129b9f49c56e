from __future__ import annotations

from pathlib import Path

import pytest

from gateway.errors import ConfigError
from gateway.settings.config import load_config, read_config_file
from gateway.settings.table import SETTINGS

ROOT = Path(__file__).resolve().parents[2]
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
