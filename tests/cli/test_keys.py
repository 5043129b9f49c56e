"""``hfa keys create --client --matter``: the lawyer's email says for whom, set by the key.

A key is created through the CLI, a request is filed with it over HTTP to a
running gateway, and the email that reaches the relay (a real SMTP sink) shows
the key's client as set by the key, the agent's own matter as its claim, a
From that names the reference and the agent, and a List-Id.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.cli import main
from tests.conftest import LAWYER, REPLY_DOMAIN, SmtpSink, make_config, start_running
from tests.conftest import stop_running as stop


async def test_a_keys_client_and_an_agents_matter_reach_the_lawyer(
    tmp_path: Path,
    sink: SmtpSink,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HFA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("HFA_LAWYERS", LAWYER)
    monkeypatch.setenv("HFA_REPLY_DOMAIN", REPLY_DOMAIN)
    # Only serve and db upgrade make a gateway; the key commands need one.
    assert main(["db", "upgrade"]) == 0
    capsys.readouterr()
    assert main(["keys", "create", "contracts-bot", "--client", "Acme Robotics GmbH"]) == 0
    key = capsys.readouterr().out.splitlines()[0].strip()
    assert main(["keys", "list"]) == 0
    assert "For: Acme Robotics GmbH" in capsys.readouterr().out
    assert main(["keys", "create", "bad", "--client", "\x1b[31mred"]) == 1

    running = await start_running(make_config(tmp_path), sink)
    try:
        filed = await running.http.post(
            "/v1/requests",
            json={
                "category": "legal_review",
                "request": "May we accept Zoom's updated Terms of Service?",
                "agent_name": "contracts-bot",
                "client": "Globex Ltd",
                "matter": "LEG-311",
            },
            headers={"X-API-Key": key},
        )
        assert filed.status_code == 201, filed.text
        reference = filed.json()["reference"]
        (mail,) = await sink.wait_for(1)
    finally:
        await stop(running)
    assert mail["From"].addresses[0].display_name == f"{reference} · contracts-bot via Human for AI"
    assert mail["List-Id"] == f"Human for AI requests <hfa.{REPLY_DOMAIN}>"
    assert "May we accept Zoom's" in str(mail["Subject"])
    part = mail.get_body(("plain",))
    assert part is not None
    text = part.get_content()
    assert "For: Acme Robotics GmbH (set by the API key); the agent says: Globex Ltd" in text
    assert "Matter: LEG-311 (the agent's claim)" in text
    assert "OTHER DETAILS" not in text
