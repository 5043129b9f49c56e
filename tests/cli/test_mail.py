"""``hfa mail list|show``: the mail written to the local Maildir when no relay is set."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.cli import main
from tests.cli.test_run import free_port, gateway_env


def test_mail_list_and_show_read_the_maildir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    http_port, smtp_port = free_port(), free_port()
    for key, value in gateway_env(tmp_path, http_port, smtp_port).items():
        if key.startswith("HFA_"):
            monkeypatch.setenv(key, value)
    assert main(["mail", "list"]) == 0
    assert "no mail" in capsys.readouterr().out
    maildir = tmp_path / "maildir"
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True)
    (maildir / "new" / "1700000000.M1P1Q1.host").write_bytes(
        b"From: gw@localhost\nTo: counsel@lawfirm.example\nSubject: [HFA-00001] Legal review: x\n"
        b"Message-ID: <m1@localhost>\n\nWHAT IS ASKED\nCheck the NDA.\n"
    )
    assert main(["mail", "list"]) == 0
    assert "[HFA-00001] Legal review: x" in capsys.readouterr().out
    assert main(["mail", "show", "1"]) == 0
    shown = capsys.readouterr().out
    assert "To: counsel@lawfirm.example" in shown and "Check the NDA." in shown
    assert main(["mail", "show", "7"]) == 3  # the README's exit code for "no such id"
    assert "hfa mail list" in capsys.readouterr().err
