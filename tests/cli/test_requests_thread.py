"""``hfa requests show``: one request's whole thread, as ops read it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.opskit import file_and_mail
from tests.clienv import run, use_settings
from tests.conftest import LAWYER, SmtpSink, make_config, start_running, stop_running
from tests.mailkit import reply_to, send


async def test_show_names_a_held_reading_and_when_it_takes_effect(
    tmp_path: Path,
    sink: SmtpSink,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    running = await start_running(make_config(tmp_path, correction_window="60s"), sink)
    try:
        use_settings(monkeypatch, running.services.config.raw)
        filed, email = await file_and_mail(running)
        await send(reply_to(email, "Approved."), running.smtp_port)
        await running.wait_status(
            filed, lambda t: any(turn["kind"] == "pending_decision" for turn in t["turns"])
        )
        code, out, _ = run(capsys, "requests", "show", filed["reference"])
    finally:
        await stop_running(running)
    assert code == 0
    assert f"human/pending_decision from {LAWYER} read_as=approval (takes effect 20" in out
