"""Settings this release does not know, in the file or the environment: ignored with a warning that names the likely one."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.settings.config import load_config, read_config_file

ROOT = Path(__file__).resolve().parents[2]


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
