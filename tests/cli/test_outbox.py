"""``hfa outbox list|retry`` against a running gateway: failed mail is listed and tried again."""

from __future__ import annotations

import asyncio

import pytest

from tests.cli.opskit import audit_events, run_json
from tests.clienv import run
from tests.conftest import LAWYER, Running


async def test_outbox_list_failed_and_retry(
    ops: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    ops.sink.answer = "550 5.1.1 mailbox unavailable"
    filed = await ops.file()
    await ops.wait_status(filed, lambda t: t["turns"][-1]["kind"] == "email_failed")

    failed = run_json(capsys, "outbox", "list", "--failed")
    assert len(failed) == 1
    item = failed[0]
    assert item["reference"] == filed["reference"] and item["state"] == "dead"
    assert "550" in item["last_error"]
    code, out, _ = run(capsys, "outbox", "list", "--failed")
    assert code == 0 and "550" in out and filed["reference"] in out

    ops.sink.answer = None
    code, out, _ = run(capsys, "outbox", "retry", str(item["id"]))
    assert code == 0 and str(item["id"]) in out
    ops.services.outbox_ready.set()
    [message] = await ops.sink.wait_for(1)
    assert message["To"] == LAWYER
    for _ in range(100):
        states = {i["id"]: i["state"] for i in run_json(capsys, "outbox", "list")}
        if states[item["id"]] == "sent":
            break
        await asyncio.sleep(0.05)
    assert states[item["id"]] == "sent"
    # The thread said it failed; it now also says it went out, and who retried it.
    thread = await ops.wait_status(filed, lambda t: t["turns"][-1]["kind"] == "email_delivered")
    assert "after ops:ops-on-call retried it" in thread["turns"][-1]["body"]
    [retried] = audit_events(ops.services, "outbox.retry_requested")
    assert retried.actor == "ops:ops-on-call" and retried.details["previous_state"] == "dead"
    assert run_json(capsys, "outbox", "list", "--failed") == []

    code, _, err = run(capsys, "outbox", "retry", str(item["id"]))
    assert code == 1 and "already delivered" in err
    assert run(capsys, "outbox", "retry", "99999")[0] == 3
    assert run(capsys, "outbox", "retry")[0] == 2
    code, out, _ = run(capsys, "outbox", "retry", "--all-failed")
    assert code == 0 and "no failed deliveries" in out
