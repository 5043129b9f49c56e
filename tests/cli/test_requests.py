"""The ops CLI against a running gateway: see requests, fix failed mail, decide on held replies."""

from __future__ import annotations

import re

import pytest

from tests.cli.opskit import audit_events, file_and_mail, run_json
from tests.clienv import run
from tests.conftest import LAWYER, Running
from tests.mailkit import reply_to, send


async def test_requests_list_show_and_close(
    ops: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    first, email = await file_and_mail(ops, urgency="blocking", agent_name="contracts-bot")
    second = await ops.file(category="human_confirmation", request="May I ship today?")
    late = await ops.file(request="Was due long ago.", deadline="2020-01-01")
    await send(reply_to(email, "Clause 7 is fine."), ops.smtp_port)
    await ops.wait_status(first, lambda t: t["status"] == "answered")

    code, out, _ = run(capsys, "requests", "list")
    assert code == 0
    for filed in (first, second, late):
        assert filed["reference"] in out
    assert "contracts-bot" in out and "answered" in out and "(overdue)" in out

    listed = run_json(capsys, "requests", "list", "--status", "recorded")
    assert [r["reference"] for r in listed] == [second["reference"], late["reference"]]
    listed = run_json(capsys, "requests", "list", "--category", "human_confirmation")
    assert [r["reference"] for r in listed] == [second["reference"]]
    listed = run_json(capsys, "requests", "list", "--overdue")
    assert [r["reference"] for r in listed] == [late["reference"]]

    code, out, _ = run(capsys, "requests", "show", first["reference"].lower())
    assert code == 0
    assert f"{first['reference']}  ANSWERED" in out
    assert "Please review clause 7." in out and "Clause 7 is fine." in out
    assert f"human/reply from {LAWYER}" in out
    assert re.search(r"\brequest\s+" + re.escape(LAWYER) + r"\s+sent\b", out), out
    assert first["access_token"] not in out
    shown = run_json(capsys, "requests", "show", first["reference"])
    assert [e["purpose"] for e in shown["emails"]][:1] == ["request"]
    assert shown["emails"][0]["state"] == "sent"
    assert [t["author"] for t in shown["turns"]][:1] == ["sender"]

    code, _, err = run(capsys, "requests", "show", "HFA-09999")
    assert code == 3 and "no request HFA-09999" in err

    code, out, _ = run(
        capsys, "requests", "close", second["reference"], "--reason", "Duplicate", "--by", "alice"
    )
    assert code == 0 and "closed" in out
    thread = await ops.status(second)
    assert thread["status"] == "closed"
    assert "closed by alice: Duplicate" in thread["turns"][-1]["body"]
    [closed] = audit_events(ops.services, "request.closed")
    assert closed.actor == "ops:alice" and closed.details["reason"] == "Duplicate"
    code, _, err = run(capsys, "requests", "close", second["reference"], "--reason", "again")
    assert code == 1 and "already closed" in err
    code, _, _ = run(capsys, "requests", "close", "HFA-09999", "--reason", "x")
    assert code == 3
