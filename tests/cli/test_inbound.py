"""``hfa inbound list|show|accept|reprocess`` against a running gateway."""

from __future__ import annotations

import ast
import asyncio
import re
import uuid
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from gateway.cli import main
from gateway.cli.inbound import OUTCOMES
from tests.cli.opskit import audit_events, file_and_mail, run_json
from tests.clienv import run
from tests.conftest import REPLY_DOMAIN, SECOND_LAWYER, Running
from tests.mailkit import reply_to, send

ROOT = Path(__file__).resolve().parents[2]


async def test_inbound_list_show_accept_and_reprocess(
    ops: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    filed, email = await file_and_mail(ops)
    token = re.search(r"reply\+([^@]+)@", str(email["Reply-To"]))
    assert token is not None
    # The lawyer answers from a second address: held, not recorded.
    held_reply = reply_to(email, "APPROVE from my phone.", sender=SECOND_LAWYER)
    await send(held_reply, ops.smtp_port)
    await send(_no_thread_message(), ops.smtp_port)

    async def outcomes() -> list[dict[str, Any]]:
        return run_json(capsys, "inbound", "list")  # type: ignore[no-any-return]

    for _ in range(200):
        listed = await outcomes()
        if len(listed) == 2 and all(m["outcome"] for m in listed):
            break
        await asyncio.sleep(0.05)
    held, stray = listed
    assert held["outcome"] == "unverified_sender" and held["reference"] == filed["reference"]
    assert stray["outcome"] == "no_thread"
    only = run_json(capsys, "inbound", "list", "--outcome", "no_thread")
    assert [m["id"] for m in only] == [stray["id"]]

    code, out, _ = run(capsys, "inbound", "show", str(held["id"]))
    assert code == 0
    assert f"From: Dana Counsel <{SECOND_LAWYER}>" in out
    assert "unverified_sender" in out and "APPROVE from my phone." in out
    assert "ELIDED" in out and "Please review clause 7." in out
    assert token.group(1) not in out  # the reply token is a secret: hidden in ops output
    assert "reply+…@" in out

    code, out, _ = run(capsys, "inbound", "accept", str(held["id"]), "--by", "bob")
    assert code == 0 and filed["reference"] in out
    thread = await ops.status(filed)
    [human] = [t for t in thread["turns"] if t["author"] == "human"]
    assert human["from"] == SECOND_LAWYER and human["accepted_by"] == "bob"
    assert human["kind"] == "approval" and thread["status"] == "answered"
    [accepted] = audit_events(ops.services, "inbound.accepted")
    assert accepted.actor == "ops:bob" and accepted.reference == filed["reference"]
    code, _, err = run(capsys, "inbound", "accept", str(held["id"]))
    assert code == 1 and "only a held message" in err
    assert run(capsys, "inbound", "accept", "99999")[0] == 3

    code, out, _ = run(capsys, "inbound", "reprocess", str(stray["id"]))
    assert code == 0 and "no_thread" in out
    [again] = audit_events(ops.services, "inbound.reprocess_requested")
    assert again.details == {"inbound_id": stray["id"], "previous_outcome": "no_thread"}
    code, _, err = run(capsys, "inbound", "reprocess", str(held["id"]))
    assert code == 1 and "recorded" in err  # recording it twice would duplicate the answer
    assert run(capsys, "inbound", "show", "99999")[0] == 3


def _no_thread_message() -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "stranger@example.org"
    msg["To"] = f"gateway@{REPLY_DOMAIN}"
    msg["Subject"] = "Hello"
    msg["Message-ID"] = f"<{uuid.uuid4().hex}@example.org>"
    # The bounce address takes only automatic mail about our Message-IDs; this one
    # names an id of ours that matches no request.
    msg["Auto-Submitted"] = "auto-replied"
    msg["In-Reply-To"] = f"<unknown@{REPLY_DOMAIN}>"
    msg.set_content("Is anyone there?")
    return msg


def test_an_unknown_outcome_is_refused_naming_the_valid_ones(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["inbound", "list", "--outcome", "bogus"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "bogus" in err and "unverified_sender" in err


def test_the_outcome_list_is_every_outcome_the_code_gives() -> None:
    given: set[str] = set()
    for path in (ROOT / "gateway").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "Outcome"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                given.add(str(node.args[0].value))
    assert given and given <= set(OUTCOMES)
