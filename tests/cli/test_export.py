"""``hfa export``: every request with every turn, nothing cut; lists say when they are cut."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.settings.config import Config
from tests.cli.opskit import file_and_mail
from tests.clienv import run
from tests.conftest import LAWYER, Running, make_config
from tests.mailkit import reply_to, send

MORE_THAN_A_PAGE = 205  # the lists' default page is 200


@pytest.fixture
def config(tmp_path: Path, database_url: str) -> Config:
    # More filings than one agent may make in a minute by default.
    return make_config(tmp_path, database_url=database_url, rate_limit_per_minute="100000")


async def test_export_has_every_request_and_every_answer(
    ops: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    first, mail = await file_and_mail(ops, request="Question 0")
    filed = [first] + [await ops.file(request=f"Question {n}") for n in range(1, MORE_THAN_A_PAGE)]
    # One answered by the lawyer: its text must be in the export.
    await send(reply_to(mail, "Approved.\n\nDana", sender=LAWYER), ops.smtp_port)
    await ops.wait_status(filed[0], lambda s: s["human_has_replied"])

    code, out, err = run(capsys, "export")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [x["request"]["reference"] for x in lines] == [f["reference"] for f in filed]
    answered = lines[0]
    assert any(t["author"] == "human" and "Approved." in t["body"] for t in answered["turns"]), (
        answered["turns"]
    )
    assert answered["request"]["fields"]["request"] == "Question 0"
    assert f"exported {MORE_THAN_A_PAGE}" in err

    code, out, _ = run(capsys, "export", "--after", filed[-3]["reference"])
    assert [json.loads(x)["request"]["reference"] for x in out.splitlines()] == [
        f["reference"] for f in filed[-2:]
    ]
    code, out, err = run(capsys, "export", "--limit", "0")
    assert code == 2 and out == "" and "--limit" in err

    # The list says it is cut, and --limit 0 means all of them.
    code, out, err = run(capsys, "requests", "list", "--json")
    assert code == 0 and len(json.loads(out)) == 200
    assert "only the newest 200" in err and "hfa export" in err
    code, out, err = run(capsys, "requests", "list", "--json", "--limit", "0")
    assert len(json.loads(out)) == MORE_THAN_A_PAGE and err == ""
