"""Each one-click answer, end to end: link -> the mail a client sends -> decision, receipt.

The link is taken from the rendered HTML of the real request email; the mail
is what a client composes from a ``mailto:`` URL (the link's recipient,
subject and body, with the lawyer's text top-posted and the original quoted
below), sent over SMTP to the running gateway.
"""

from __future__ import annotations

import re
from email.message import EmailMessage
from html import unescape
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from tests.conftest import LAWYER, Running
from tests.mailkit import quoted, send

FILLED = {
    "APPROVE": "Fine as proposed.",
    "APPROVE WITH CONDITIONS": None,  # the conditions go under the prompt
    "REJECT": "The IBAN change was not confirmed by phone.",
    "QUESTION": "Who at Northwind confirmed the new account?",
    "DECLINE": "Not a legal matter; ask finance.",
    "I'M ON IT": "Friday noon.",
}
EXPECTED: dict[str, tuple[str | None, str, str]] = {
    # keyword: (decision, status, receipt headline)
    "APPROVE": ("approval", "answered", "You APPROVED"),
    "APPROVE WITH CONDITIONS": ("approval", "answered", "You APPROVED, with conditions"),
    "REJECT": ("rejection", "answered", "You REJECTED"),
    "QUESTION": ("question", "reviewed", "You asked a QUESTION"),
    "DECLINE": ("decline", "declined", "You DECLINED this request"),
    "I'M ON IT": ("acknowledgement", "reviewed", "You said I'M ON IT"),
}
CONDITIONS = ["only after a call-back to the known number", "no more than EUR 48,500.00"]


def links_in(email: EmailMessage) -> dict[str, str]:
    html = email.get_body(preferencelist=("html",))
    assert html is not None
    found = re.findall(r'href="(mailto:[^"]+)"[^>]*>([^<]+)</a>', str(html.get_content()))
    return {unescape(label): unescape(href) for href, label in found}


def composed(url: str, keyword: str, original: EmailMessage) -> EmailMessage:
    """The mail a client sends from a mailto link, filled in and top-posted."""
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    body = query["body"][0].replace("\r\n", "\n")
    written = FILLED[keyword]
    if written is None:
        body = body.replace("- \n- ", "\n".join(f"- {c}" for c in CONDITIONS))
    else:
        body = body.rstrip("\n") + "\n" + written + "\n"
    msg = EmailMessage()
    msg["From"] = f"Dana Counsel <{LAWYER}>"
    msg["To"] = unquote(parts.path)
    msg["Subject"] = query["subject"][0]
    msg["Message-ID"] = f"<quick-{abs(hash(keyword))}@lawfirm.example>"
    header = "On Tue, 1 Dec 2026 at 09:12, Human for AI wrote:"
    msg.set_content(f"{body}\nDana\n\n{header}\n\n{quoted(original)}\n")
    return msg


def last_human(thread: dict[str, Any]) -> dict[str, Any]:
    humans = [t for t in thread["turns"] if t["author"] == "human"]
    assert humans, thread
    turn: dict[str, Any] = humans[-1]
    return turn


@pytest.mark.parametrize("keyword", list(EXPECTED))
async def test_each_quick_reply_link_is_recorded_as_its_decision(
    running: Running, keyword: str
) -> None:
    filed = await running.file(
        category="human_confirmation",
        request="Pay EUR 48,500.00 to the new IBAN of Northwind GmbH?",
        proposed_action="Transfer EUR 48,500.00 to IBAN DE89 3704 0044 0532 0130 00.",
        context="The supplier changed its bank account by email on Monday.",
        urgency="blocking",
    )
    [email] = await running.sink.wait_for(1)
    links = links_in(email)
    assert set(links) == set(EXPECTED)
    await send(composed(links[keyword], keyword, email), running.smtp_port)

    decision, status, headline = EXPECTED[keyword]
    thread = await running.wait_status(filed, lambda t: t["status"] == status)
    turn = last_human(thread)
    assert turn.get("decision") == decision or turn["kind"] == decision, turn
    if keyword == "APPROVE WITH CONDITIONS":
        assert turn["conditions"] == CONDITIONS
    else:
        assert not turn.get("conditions")
    assert "On Tue, 1 Dec 2026" not in turn["body"]  # the quoted original is not recorded

    receipt = (await running.sink.wait_for(2))[1]
    assert receipt["To"] == LAWYER
    # What was recorded, then the ask's first words: "your" gives way when room is short.
    assert str(receipt["Subject"]).startswith("Recorded: ")
    assert "“Pay EUR 48,500.00" in str(receipt["Subject"])
    text = receipt.get_body(preferencelist=("plain",))
    assert text is not None
    content = str(text.get_content())
    assert headline in content
    if keyword == "APPROVE WITH CONDITIONS":
        assert "Only within 2 conditions" in content
        assert all(c in content for c in CONDITIONS)
    if keyword in ("APPROVE", "APPROVE WITH CONDITIONS", "REJECT"):
        assert "| Transfer EUR 48,500.00 to IBAN DE89" in content


async def test_an_answer_link_sent_as_it_opened_records_none_of_the_prompt(
    running: Running,
) -> None:
    filed = await running.file(
        request="May we sign the ACME NDA today?", proposed_action="Sign and return it."
    )
    [email] = await running.sink.wait_for(1)
    parts = urlsplit(links_in(email)["APPROVE"])
    query = parse_qs(parts.query, keep_blank_values=True)
    msg = EmailMessage()
    msg["From"] = f"Dana Counsel <{LAWYER}>"
    msg["To"] = unquote(parts.path)
    msg["Subject"] = query["subject"][0]
    msg["Message-ID"] = "<as-opened@lawfirm.example>"
    header = "On Tue, 1 Dec 2026 at 09:12, Human for AI wrote:"
    # Nothing added: the prompt goes back as the link filled it in.
    msg.set_content(f"{query['body'][0]}\n\n{header}\n\n{quoted(email)}\n")
    await send(msg, running.smtp_port)

    thread = await running.wait_status(filed, lambda t: t["status"] == "answered")
    turn = last_human(thread)
    assert turn["decision"] == "approval"
    assert "Notes (optional)" not in turn["body"]
    receipt = (await running.sink.wait_for(2))[1]
    text = receipt.get_body(preferencelist=("plain",))
    assert text is not None and "Notes (optional)" not in str(text.get_content())
