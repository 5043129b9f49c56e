"""Three approvers in three languages, told as one group, end to end over SMTP.

2 of 3 with veto; counsel reads English, partner German, avocate French. Counsel
approves with conditions (typed, so held for its correction window), partner
approves with conditions of her own, avocate objects after the outcome. Every
request email states the rule and names the others; the outcome reaches all with
every condition; the late veto reaches everyone and its receipt says the outcome
stands; nobody is reminded inside or after their answer; no two emails reach one
lawyer in the same second; the German and French emails carry no raw rule and no
English sentence.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import parsedate_to_datetime
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.mailkit import quoted, reply_to, send
from tests.outbound.test_push import Receiver, receiver

__all__ = ["receiver"]

COUNSEL = "counsel@firm.test"
PARTNER = "partner@firm.test"
AVOCATE = "avocate@firm.test"
ALL = (COUNSEL, PARTNER, AVOCATE)
WINDOW = 3
ASK = {
    "category": "legal_review",
    "urgency": "blocking",
    "request": "Sign Kestrel MSA 2027 today?",
    "proposed_action": "Sign Kestrel MSA 2027 (Delaware, 12-month cap).",
    "context": "Redline attached.",
    "attachments": [
        {
            "name": "Kestrel-MSA-2027-redline.pdf",
            "size": 482133,
            "url": "https://files.example/kestrel-redline.pdf",
        }
    ],
}
COUNSEL_CONDITIONS = ["cap stays at 12 months", "Delaware law only"]
PARTNER_CONDITIONS = ["Haftung begrenzt auf 1 Mio.", "Kündigung mit 30 Tagen"]
VETO = "Ne signez pas : plafond inacceptable."
# Words of the gateway's English sentences that a German or French email must not carry
# once the agent's and the lawyers' own words are set aside.
ENGLISH = re.compile(
    r"\b(the|and|your|you|is|are|of|approval|approvals|approvers|needed|rejection|"
    r"outcome|decided|waiting|stops|counted|reminder|answered|veto|wait)\b",
    re.IGNORECASE,
)
KEYWORDS = re.compile(r"APPROVE WITH CONDITIONS|APPROVE|REJECT|QUESTION|DECLINE|I'M ON IT")


@pytest.fixture
async def running(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    config = make_config(
        tmp_path,
        database_url=database_url,
        webhook_allow_private="1",
        lawyers=",".join(ALL),
        policies=f"legal_review=2 of {','.join(ALL)} veto",
        lawyer_languages=f"{PARTNER}=de,{AVOCATE}=fr",
        correction_window=f"{WINDOW}s",
        reminders="blocking=2s",
        reminder_cap="1",
        scheduler_seconds="1",
    )
    started = await start_running(config, sink)
    yield started
    await stop_running(started)


def mails(running: Running, address: str, kind: str | None = None) -> list[EmailMessage]:
    return [
        m
        for m in running.sink.messages()
        if str(m["To"]) == address and (kind is None or m["X-HFA-Kind"] == kind)
    ]


async def mail_to(running: Running, address: str, kind: str, count: int = 1) -> EmailMessage:
    for _ in range(400):
        found = mails(running, address, kind)
        if len(found) >= count:
            return found[count - 1]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {kind} email to {address}")


def plain(message: EmailMessage, *, flat: bool = True) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    text = str(part.get_content())
    return " ".join(text.split()) if flat else text


def html(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("html",))
    assert part is not None
    return str(part.get_content())


def with_conditions(email: EmailMessage, sender: str, conditions: list[str]) -> EmailMessage:
    """The APPROVE WITH CONDITIONS link filled in, as a mail client sends it."""
    found = re.findall(r'href="(mailto:[^"]+)"[^>]*>([^<]+)</a>', html(email))
    url = {unescape(label): unescape(href) for href, label in found}["APPROVE WITH CONDITIONS"]
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    body = query["body"][0].replace("\r\n", "\n")
    body = body.replace("- \n- ", "\n".join(f"- {c}" for c in conditions))
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = unquote(parts.path)
    msg["Subject"] = query["subject"][0]
    msg["Message-ID"] = f"<cond-{sender.partition('@')[0]}@firm.test>"
    msg.set_content(f"{body}\n\nOn Mon, 7 Dec 2026, Human for AI wrote:\n\n{quoted(email)}\n")
    return msg


async def until(
    running: Running, filed: dict[str, Any], test: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    return await running.wait_status(filed, lambda t: test(t["turns"][0]["policy"]), timeout=20)


def own_words_removed(text: str) -> str:
    """The email without what the agent and the lawyers wrote: the gateway's words only."""
    for words in (*COUNSEL_CONDITIONS, *PARTNER_CONDITIONS, VETO, *map(str, ASK.values())):
        text = text.replace(words, " ")
    text = re.sub(r"<mailto:[^>]*>|mailto:[^\"'\s]*|https?://\S+", " ", text)
    text = re.sub(r"[\w.+-]+@[\w.-]+", " ", text)
    text = KEYWORDS.sub(" ", text)
    # Lines the agent wrote are barred ("| ..."); the lawyers' texts sit between rules.
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("|"))
    text = re.sub(r"-{20,}.*?-{20,}", " ", text, flags=re.DOTALL)
    return " ".join(text.split())


async def test_three_approvers_in_three_languages_are_told_as_one_group(
    running: Running, receiver: Receiver
) -> None:
    filed = await running.file(**ASK, reply_to=receiver.url)
    asks = {a: await mail_to(running, a, "request") for a in ALL}

    # The rule from the first email, in each one's language, with the others named.
    assert "You are one of 3 approvers. 2 approvals are needed. One rejection stops it." in (
        plain(asks[COUNSEL])
    )
    assert f"Also asked: {PARTNER}, {AVOCATE}." in plain(asks[COUNSEL])
    assert "Sie sind eine/r von 3 Genehmigenden. 2 Genehmigungen sind nötig." in plain(
        asks[PARTNER]
    )
    assert f"Ebenfalls gefragt: {COUNSEL}, {AVOCATE}." in plain(asks[PARTNER])
    assert "Vous êtes l’un des 3 approbateurs. 2 approbations sont nécessaires." in plain(
        asks[AVOCATE]
    )
    # The document is a named link with its size, above the context, never a list repr.
    for email in asks.values():
        page = html(email)
        assert 'href="https://files.example/kestrel-redline.pdf"' in page
        assert page.index("Kestrel-MSA-2027-redline.pdf") < page.index("hfa-answers")
        assert "[{" not in page and "482133" not in page and "{'name'" not in plain(email)
    assert "(471 KB)" in plain(asks[COUNSEL]) and "(471 KB)" in plain(asks[PARTNER])

    # Counsel approves with conditions, typed: held for the window, then counted. A lawyer
    # reads the request before answering: the receipt does not share the request's second
    # (the check at the end asks that no two emails to one lawyer do).
    await asyncio.sleep(1.1)
    await send(with_conditions(asks[COUNSEL], COUNSEL, COUNSEL_CONDITIONS), running.smtp_port)
    await until(running, filed, lambda p: len(p["approvals"]) == 1)
    # Partner answers once the reminder that follows has gone to those still awaited.
    await mail_to(running, PARTNER, "reminder")
    await asyncio.sleep(1.1)
    await send(with_conditions(asks[PARTNER], PARTNER, PARTNER_CONDITIONS), running.smtp_port)
    thread = await until(running, filed, lambda p: p["outcome"] != "pending")
    assert thread["turns"][0]["policy"]["outcome"] == "approved_with_conditions"

    # One outcome email to every approver who did not decide it, with every condition.
    told_counsel = await mail_to(running, COUNSEL, "answered_by_other")
    told_avocate = await mail_to(running, AVOCATE, "answered_by_other")
    # Partner's answer decided it once its window ended: she is told the whole outcome too.
    told_partner = plain(await mail_to(running, PARTNER, "answered_by_other"))
    assert "Ihre Genehmigung hat gezählt." in told_partner
    for condition in (*COUNSEL_CONDITIONS, *PARTNER_CONDITIONS):
        assert condition in told_partner
    text = plain(told_counsel)
    assert "Your approval counted." in text
    for condition in (*COUNSEL_CONDITIONS, *PARTNER_CONDITIONS):
        assert condition in text and condition in plain(told_avocate)
    assert str(told_counsel["Subject"]).startswith("Decided: APPROVED WITH CONDITIONS: “Sign")
    assert "Décidé : APPROUVÉ SOUS CONDITIONS" in plain(told_avocate)
    assert "Answered by another lawyer" not in text
    await receiver.wait_for(1)

    # Avocate's veto after the outcome: an alarm to everyone, and the outcome stands.
    await asyncio.sleep(1.1)
    await send(
        reply_to(asks[AVOCATE], f"REJECT\n\n{VETO}", sender=AVOCATE, display_name=""),
        running.smtp_port,
    )
    receipt = plain(await mail_to(running, AVOCATE, "receipt"))
    assert "a été atteint avant votre réponse et est maintenu" in receipt
    assert "L’agent est informé que vous avez rejeté" not in receipt
    assert 'class="hfa-button"' not in html(await mail_to(running, AVOCATE, "receipt"))
    alarm = {a: await mail_to(running, a, "late_objection") for a in (COUNSEL, PARTNER)}
    assert AVOCATE in plain(alarm[COUNSEL]) and VETO in plain(alarm[COUNSEL])
    assert "the outcome APPROVED WITH CONDITIONS stands" in plain(alarm[COUNSEL])
    assert "widerspricht" in plain(alarm[PARTNER]) and VETO in plain(alarm[PARTNER])
    assert mails(running, AVOCATE, "late_objection") == []
    await receiver.wait_for(2)
    thread = await running.status(filed)

    # Nobody reminded inside or after their answer; no two emails in one second.
    answered = {
        t["from"]: datetime.fromisoformat(t["at"])
        for t in thread["turns"]
        if t["author"] == "human"
    }
    for address in ALL:
        for reminder in mails(running, address, "reminder"):
            sent = parsedate_to_datetime(str(reminder["Date"]))
            if address in answered:
                assert sent < answered[address].replace(microsecond=0), address
        seconds = [str(m["Date"]) for m in mails(running, address)]
        assert len(seconds) == len(set(seconds)), (address, seconds)
    held = [t for t in thread["turns"] if t["kind"] == "pending_decision"]
    reminded = [
        datetime.fromisoformat(t["at"]) for t in thread["turns"] if t["kind"] == "reminder_sent"
    ]
    for turn in held:
        start = datetime.fromisoformat(turn["at"])
        assert not [r for r in reminded if start <= r <= start + timedelta(seconds=WINDOW)], turn

    # The German and French emails: no raw rule, no English sentence.
    for address in (PARTNER, AVOCATE):
        for email in mails(running, address):
            page = re.sub(r"<style.*?</style>|<[^>]+>", " ", html(email), flags=re.DOTALL)
            for part in (plain(email, flat=False), unescape(page)):
                assert "2 of" not in part and " veto" not in part, (address, email["X-HFA-Kind"])
                left = own_words_removed(part)
                # What is checked is most of the email: the gateway's own words.
                assert len(left.split()) > 40, left
                found = ENGLISH.findall(left)
                assert not found, (address, email["X-HFA-Kind"], found, left[:400])
            subject = own_words_removed(str(email["Subject"]))
            assert not ENGLISH.findall(subject), subject
