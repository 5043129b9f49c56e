"""Multiple choice end to end over SMTP: a button per choice, typed picks, no false pick.

The agent files ``options: {"format": "multiple_choice", "choices": [...]}``; the
lawyer's email (HTML and text) shows a button per choice. A button sent as it opened
records the choice at once; a choice named in typed words ("Option B", "the second
one", "B") is held through the correction window and then recorded; a reply naming two
choices records none. German and French lawyers get the buttons in their language and
are read in their words.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from tests.conftest import LAWYER, Running, SmtpSink, make_config, start_running, stop_running
from tests.e2e.test_quick_replies import links_in
from tests.mailkit import quoted, reply_to, send

CHOICES = ["Delaware law", "English law", "Swiss law"]
SECOND = CHOICES[1]
WINDOW_SECONDS = 3


async def _gateway(
    tmp_path: Path, sink: SmtpSink, database_url: str, **settings: str
) -> AsyncIterator[Running]:
    wanted = {"correction_window": f"{WINDOW_SECONDS}s"} | settings
    config = make_config(tmp_path, database_url=database_url, **wanted)
    running = await start_running(config, sink)
    yield running
    await stop_running(running)


@pytest.fixture
async def chooser(tmp_path: Path, sink: SmtpSink, database_url: str) -> AsyncIterator[Running]:
    async for running in _gateway(tmp_path, sink, database_url):
        yield running


async def filed_choice(running: Running) -> tuple[dict[str, Any], EmailMessage]:
    filed = await running.file(
        request="Which governing law should the NDA with Northwind name?",
        options={"format": "multiple_choice", "choices": CHOICES},
    )
    email = await running.sink.request_email(filed["reference"])
    return filed, email


def choice_buttons(email: EmailMessage) -> dict[str, str]:
    """The choice buttons of the HTML part: the choice's text -> its mailto link."""
    return {
        label.split(" · ", 1)[1]: url
        for label, url in links_in(email).items()
        if " · " in label and url.startswith("mailto:")
    }


def tapped(email: EmailMessage, url: str, typed: str = "") -> EmailMessage:
    """The mail a client sends from a button: its subject and body (and what is typed)."""
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    msg = EmailMessage()
    msg["From"] = f"Dana Counsel <{LAWYER}>"
    msg["To"] = unquote(parts.path)
    msg["Subject"] = query["subject"][0]
    body = query["body"][0].replace("\r\n", "\n") + typed
    header = "On Tue, 1 Dec 2026 at 09:12, Human for AI wrote:"
    msg.set_content(f"{body}\n\n{header}\n\n{quoted(email)}\n")
    return msg


async def receipt_of(sink: SmtpSink, reference: str) -> str:
    """The text of the lawyer's receipt for ``reference`` (the first one)."""
    for _ in range(200):
        for message in sink.messages():
            if (message["X-HFA-Reference"], message["X-HFA-Kind"]) == (reference, "receipt"):
                body = message.get_body(preferencelist=("plain",))
                assert body is not None
                return " ".join(str(body.get_content()).split())
        await asyncio.sleep(0.05)
    raise AssertionError(f"no receipt for {reference}")


def humans(thread: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in thread["turns"] if t["author"] == "human"]


def picked(thread: dict[str, Any]) -> list[Any]:
    return [t["choice"] for t in humans(thread) if "choice" in t]


async def test_the_email_shows_a_button_per_choice_in_html_and_text(chooser: Running) -> None:
    _filed, email = await filed_choice(chooser)
    buttons = choice_buttons(email)
    assert list(buttons) == CHOICES
    subject = parse_qs(urlsplit(buttons[SECOND]).query)["subject"][0]
    assert subject.startswith("CHOICE B [HFA-")
    text = email.get_body(preferencelist=("plain",))
    assert text is not None
    content = str(text.get_content())
    assert "CHOOSE ONE IN ONE CLICK" in content
    assert "B - English law" in content


async def test_a_tap_on_the_second_button_records_that_choice_at_once(
    tmp_path: Path, sink: SmtpSink, database_url: str
) -> None:
    # A window far longer than the wait below: a held pick could not show up in time.
    async for running in _gateway(tmp_path, sink, database_url, correction_window="120s"):
        filed, email = await filed_choice(running)
        await send(tapped(email, choice_buttons(email)[SECOND]), running.smtp_port)
        thread = await running.wait_status(filed, lambda t: picked(t), timeout=30)
        assert picked(thread) == [SECOND]
        assert thread["status"] == "answered"
        assert all(t["kind"] != "pending_decision" for t in thread["turns"])
        [turn] = humans(thread)
        assert "held_turn" not in turn
        receipt = await receipt_of(running.sink, filed["reference"])
        assert "You chose B: English law" in receipt
        assert "NOT IN EFFECT YET" not in receipt

        # A button with words typed under it that name another choice picks nothing.
        other, email = await filed_choice(running)
        typed = tapped(email, choice_buttons(email)[SECOND], "Actually Swiss law.")
        await send(typed, running.smtp_port)
        thread = await running.wait_status(other, lambda t: humans(t), timeout=30)
        assert picked(thread) == []
        assert all(t.get("pending", {}).get("choice") is None for t in thread["turns"])


@pytest.mark.parametrize("typed", ["Option B", "the second one", "B", "English law, please."])
async def test_a_typed_pick_is_recorded_after_the_window(chooser: Running, typed: str) -> None:
    filed, email = await filed_choice(chooser)
    await send(reply_to(email, typed), chooser.smtp_port)
    held = await chooser.wait_status(
        filed, lambda t: any(h["kind"] == "pending_decision" for h in humans(t))
    )
    # Inside the window the agent sees no pick and an unanswered request.
    assert picked(held) == [] and held["status"] != "answered"
    assert humans(held)[0]["pending"]["choice"] == SECOND
    receipt = await receipt_of(chooser.sink, filed["reference"])
    assert "You chose B: English law" in receipt and "NOT IN EFFECT YET" in receipt
    done = await chooser.wait_status(filed, lambda t: picked(t), timeout=WINDOW_SECONDS + 10)
    assert picked(done) == [SECOND]
    assert done["status"] == "answered"


@pytest.mark.parametrize(
    "typed", ["Delaware or English law, either works for us.", "Options A and B are both fine."]
)
async def test_a_reply_naming_two_choices_records_none(chooser: Running, typed: str) -> None:
    filed, email = await filed_choice(chooser)
    await send(reply_to(email, typed), chooser.smtp_port)
    thread = await chooser.wait_status(filed, lambda t: humans(t))
    assert all(t["kind"] != "pending_decision" for t in humans(thread))
    assert picked(thread) == []
    assert all(t.get("pending", {}).get("choice") is None for t in thread["turns"])


@pytest.mark.parametrize(
    ("language", "heading", "typed"),
    [
        ("de", "Mit einem Klick auswählen", "Die zweite, bitte."),
        ("de", "Mit einem Klick auswählen", "Wir nehmen Variante B."),
        ("fr", "Choisissez en un clic", "Je prends la deuxième option."),
        ("fr", "Choisissez en un clic", "L'option B, merci."),
    ],
)
async def test_german_and_french_lawyers_pick_by_button_and_in_their_words(
    tmp_path: Path, sink: SmtpSink, database_url: str, language: str, heading: str, typed: str
) -> None:
    async for running in _gateway(tmp_path, sink, database_url, language=language):
        by_button, first = await filed_choice(running)
        html = first.get_body(preferencelist=("html",))
        assert html is not None and heading in str(html.get_content())
        await send(tapped(first, choice_buttons(first)[SECOND]), running.smtp_port)
        thread = await running.wait_status(by_button, lambda t: picked(t))
        assert picked(thread) == [SECOND]

        by_words, second = await filed_choice(running)
        await send(reply_to(second, typed), running.smtp_port)
        thread = await running.wait_status(
            by_words, lambda t: picked(t), timeout=WINDOW_SECONDS + 10
        )
        assert picked(thread) == [SECOND]
        assert any(t["kind"] == "pending_decision" for t in humans(thread))
