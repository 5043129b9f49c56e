"""Nothing an agent or a sender writes can act on the operator's terminal."""

from __future__ import annotations

import json

import pytest

from gateway.cli.terminal import escape
from tests.cli.opskit import file_and_mail
from tests.clienv import run
from tests.conftest import LAWYER, Running, wait_outcomes
from tests.mailkit import reply_to, send

ESC, RLO, ZWSP, BEL = "\x1b", "\u202e", "\u200b", "\x07"
HIDDEN = (ESC, RLO, ZWSP, BEL)


def _clean(text: str) -> bool:
    return not any(ch in text for ch in HIDDEN)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (f"{ESC}[2J", "[U+001B][2J"),
        (f"bot{RLO}gnp", "bot[U+202E]gnp"),
        (f"pay{ZWSP}pal", "pay[U+200B]pal"),
        (f"title{ESC}]0;owned{BEL}", "title[U+001B]]0;owned[U+0007]"),
        ("line one\n\tline two", "line one\n\tline two"),
        ("Müller, 東京", "Müller, 東京"),
    ],
)
def test_escape_shows_every_hidden_character_as_a_marker(raw: str, shown: str) -> None:
    assert escape(raw) == shown


async def test_every_ops_view_escapes_what_agents_and_senders_wrote(
    ops: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    filed, mail = await file_and_mail(
        ops,
        request=f"Pay invoice {RLO}fdp.exe{ZWSP} now {ESC}[2J",
        agent_name=f"bot{RLO}gnp{ZWSP}",
    )
    answer = reply_to(mail, f"Approved.{RLO} evil {ESC}[2J{ESC}]0;pwned{BEL}", sender=LAWYER)
    # A raw header (no RFC 2047 encoding): the ESC reaches the stored bytes as it is.
    del answer["Subject"]
    answer["Subject"] = f"Re: {RLO}devorppa{ZWSP} {ESC}[31mred"
    await send(answer, ops.smtp_port)
    await wait_outcomes(ops, 1)
    reference = filed["reference"]

    outputs = {
        "inbound show": run(capsys, "inbound", "show", "1"),
        "inbound list": run(capsys, "inbound", "list"),
        "requests show": run(capsys, "requests", "show", reference),
        "requests list": run(capsys, "requests", "list"),
        "audit tail": run(capsys, "audit", "tail", "-n", "200"),
        "export": run(capsys, "export"),
    }
    for name, (code, out, err) in outputs.items():
        assert code == 0, (name, err)
        assert _clean(out) and _clean(err), (name, out)
    assert "[U+001B][31mred" in outputs["inbound show"][1]
    assert (
        "bot[U+202E]gnp" in outputs["audit tail"][1]
        or "bot[U+202E]gnp" in (outputs["requests show"][1])
    )
    assert "[U+200B]" in outputs["requests list"][1]
    assert "[U+200B]" in outputs["requests show"][1]
    # JSON keeps the exact value, escaped the JSON way.
    code, out, _ = run(capsys, "requests", "show", reference, "--json")
    assert _clean(out)
    assert json.loads(out)["request"]["agent_name"] == f"bot{RLO}gnp{ZWSP}"


async def test_inbound_show_decodes_encoded_words(
    ops: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    _filed, mail = await file_and_mail(ops)
    answer = reply_to(mail, "Approved.", sender=LAWYER)
    del answer["Subject"]
    answer["Subject"] = "Re: “Is clause 7 acceptable?” – Müller"  # sent as RFC 2047 words
    await send(answer, ops.smtp_port)
    await wait_outcomes(ops, 1)
    code, out, _ = run(capsys, "inbound", "show", "1")
    assert code == 0
    assert "Subject: Re: “Is clause 7 acceptable?” – Müller" in out
    assert "=?utf-8?" not in out
