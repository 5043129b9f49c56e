"""Every kind of email, rendered in a real headless Chromium at phone and desktop width.

What is asserted is what a lawyer would check on screen: nothing runs off
the right edge (even with a 5,000-character URL in the agent's text), the
summary and the answer buttons are on the first phone screen, and dark mode
keeps every visible text readable. Set HFA_SHOTS=/some/dir to keep PNGs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest

from gateway.clock import FrozenClock
from gateway.services import Services, build_services
from tests.chromium import Chromium, chromium_binary
from tests.conftest import make_config
from tests.lawyer_mails import HOSTILE_TEXT, contract_context, every_kind, html_of

BINARY = chromium_binary()
pytestmark = pytest.mark.skipif(
    BINARY is None, reason="chromium is not installed (.ci/run installs Debian's chromium)"
)
PHONE, DESKTOP = 390, 1280
# Chromium's dark-mode contrast floor for body text (WCAG 2 AA).
MIN_CONTRAST = 4.5


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    assert BINARY is not None
    with Chromium(BINARY) as chromium:
        yield chromium


@pytest.fixture
def sqlite_services(tmp_path: Path) -> Iterator[Services]:
    # A clock of its own: the emails' deadline lines depend on the day they are composed.
    built = build_services(
        make_config(tmp_path), clock=FrozenClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))
    )
    yield built
    built.close()


def _shot(browser: Chromium, name: str) -> None:
    folder = os.environ.get("HFA_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        browser.screenshot(Path(folder) / f"{name}.png", full=False)


def _hostile(services: Services) -> dict[str, EmailMessage]:
    return every_kind(
        services,
        request="Pay the invoice? " + HOSTILE_TEXT,
        context=HOSTILE_TEXT,
        proposed_action="Pay it.\n" + HOSTILE_TEXT,
        operator="Acme " + "O" * 300,
        reply_to="https://hooks.acme.test/cb?signature=abc123def456",
    )


@pytest.mark.parametrize(("width", "mobile"), [(PHONE, True), (DESKTOP, False)])
def test_no_email_overflows_even_with_a_5000_character_url(
    browser: Chromium, sqlite_services: Services, width: int, mobile: bool
) -> None:
    mails = _hostile(sqlite_services)
    assert set(mails) >= {"request", "follow_up", "withdrawal", "reminder", "escalation"}
    assert {"receipt", "push"} <= set(mails)
    for kind, msg in mails.items():
        browser.load(html_of(msg), width=width, mobile=mobile)
        got = browser.measure()
        _shot(browser, f"hostile-{kind}-{width}")
        assert got["innerWidth"] == width, kind
        assert got["scrollWidth"] <= width, (kind, got)


def test_summary_and_answers_are_on_the_first_phone_screen(
    browser: Chromium, sqlite_services: Services
) -> None:
    context = contract_context(3000)
    assert len(context.split()) >= 3000
    mails = every_kind(sqlite_services, context=context)
    for kind in ("request", "reminder", "escalation", "follow_up"):
        browser.load(html_of(mails[kind]), width=PHONE, mobile=True)
        got = browser.measure()
        _shot(browser, f"contract-{kind}-phone")
        assert got["height"] > 5000, (kind, got)  # the whole contract is there, below
        if kind == "follow_up":
            # A follow-up opens with its new message (a phone's worth), then the summary.
            box = _box(browser, ".hfa-new-message")
            assert box["top"] < 200 and box["bottom"] < _box(browser, ".hfa-answers")["top"]
            continue
        assert got["summaryBottom"] is not None and got["summaryBottom"] <= 900, (kind, got)
        assert got["answersBottom"] is not None and got["answersBottom"] <= 900, (kind, got)
    browser.load(html_of(mails["request"]), width=DESKTOP, mobile=False)
    _shot(browser, "contract-request-desktop")


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_dark_mode_keeps_every_text_readable(
    browser: Chromium, sqlite_services: Services, width: int
) -> None:
    mails = _hostile(sqlite_services)
    for kind, msg in mails.items():
        browser.load(html_of(msg), width=width, mobile=width == PHONE, dark=True)
        got = browser.measure()
        _shot(browser, f"dark-{kind}-{width}")
        assert got["minContrast"] >= MIN_CONTRAST, (kind, got)


def test_a_client_that_paints_dark_but_keeps_author_colours_stays_readable(
    browser: Chromium, sqlite_services: Services
) -> None:
    """Like clients that darken the canvas but leave the email's own colours alone."""
    mails = _hostile(sqlite_services)
    for kind, msg in mails.items():
        html = html_of(msg).replace(
            "</head>", "<style>html{background:#1e1e1e !important}</style></head>", 1
        )
        browser.load(html, width=PHONE, mobile=True)
        browser.evaluate("window.__hfaCanvas = [30, 30, 30, 1]")
        got = browser.measure()
        assert got["minContrast"] >= MIN_CONTRAST, (kind, got)


# The 3,003-word contract request of the trial: the ask runs to several lines.
CONTRACT_ASK = (
    "Please review the attached Master Services Agreement with Northwind Logistics GmbH "
    "before I send our comments to their counsel on Friday. In particular:\n"
    "- Is the limitation of liability in clause 7 (12 months' fees, excluding data loss) "
    "acceptable for us as the supplier?\n"
    "- May we accept the unlimited indemnity for IP claims in clause 9.2?\n"
    "- Is the German governing law with Hamburg courts fine, or should I ask for "
    "arbitration?\n"
    "- Can we agree to the 30-day termination for convenience in clause 14.1, given our "
    "setup costs?"
)
GERMAN_ASK = (
    "Dürfen wir die Kundenliste (1.200 Datensätze mit Namen und privaten E-Mail-Adressen) "
    "heute an unseren neuen CRM-Anbieter SalesNova GmbH übermitteln, obwohl der "
    "Auftragsverarbeitungsvertrag (AVV) mit SalesNova noch nicht unterschrieben ist?"
)


def _box(browser: Chromium, selector: str) -> dict[str, float]:
    box: dict[str, float] = browser.evaluate(
        f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect();"
        " return {top: r.top + window.scrollY, bottom: r.bottom + window.scrollY}; })()"
    )
    return box


@pytest.mark.parametrize("ask", [CONTRACT_ASK, GERMAN_ASK], ids=["contract", "german"])
def test_the_whole_ask_and_the_context_line_are_above_the_buttons_on_a_phone(
    browser: Chromium, sqlite_services: Services, ask: str
) -> None:
    mails = every_kind(
        sqlite_services,
        request=ask,
        context=contract_context(3000),
        urgency="soon",
        deadline="2026-12-04",
    )
    browser.load(html_of(mails["request"]), width=PHONE, mobile=True)
    _shot(browser, f"whole-ask-{len(ask)}")
    got = browser.measure()
    # The h1 holds the whole ask, word for word: nothing is cut before the buttons.
    assert " ".join(got["h1"].split()) == " ".join(ask.split()), got["h1"]
    answers = _box(browser, ".hfa-answers")
    assert _box(browser, "h1")["bottom"] < answers["top"]
    # The line that says there is context to read, and how much, is above the buttons,
    # on the first screen.
    note = _box(browser, ".hfa-context-note")
    assert note["bottom"] <= answers["top"] and note["bottom"] <= 900, note
    text = browser.evaluate("document.querySelector('.hfa-context-note').textContent")
    assert text.startswith("Read the context below before answering: 3,0"), text
    assert _box(browser, ".hfa-context")["top"] > answers["bottom"]  # the context itself


def test_a_follow_ups_new_message_is_above_the_buttons(
    browser: Chromium, sqlite_services: Services
) -> None:
    mails = every_kind(sqlite_services, context=contract_context(3000))
    browser.load(html_of(mails["follow_up"]), width=PHONE, mobile=True)
    _shot(browser, "follow-up-phone")
    message = _box(browser, ".hfa-new-message")
    assert message["top"] < _box(browser, ".hfa-summary")["top"]
    assert message["bottom"] < _box(browser, ".hfa-answers")["top"]
    shown = browser.evaluate("document.querySelector('.hfa-new-message').textContent")
    assert "The supplier called to confirm." in shown


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_documents_and_the_group_are_on_the_first_phone_screen(
    browser: Chromium, tmp_path: Path, language: str
) -> None:
    """Three documents filed with a 4,850-word context, under 2 of 3 with veto: the
    documents are named links with sizes, and the rule with the other approvers is
    stated, all on a phone's first screen, above the context."""
    lawyers = ("counsel@firm.test", "partner@firm.test", "avocate@firm.test")
    built = build_services(
        make_config(
            tmp_path,
            lawyers=",".join(lawyers),
            policies=f"*=2 of {','.join(lawyers)} veto",
            lawyer_languages=f"counsel@firm.test={language}",
        ),
        clock=FrozenClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC)),
    )
    files = [
        {"name": f"Kestrel-MSA-2027-{n}.pdf", "size": 482133 * n, "url": f"https://f.test/{n}"}
        for n in (1, 2, 3)
    ]
    try:
        mails = every_kind(built, context=contract_context(4850), attachments=files)
    finally:
        built.close()
    page = html_of(mails["request"])
    assert "[{" not in page and "{&#39;name&#39;" not in page
    browser.load(page, width=PHONE, mobile=True)
    _shot(browser, f"documents-{language}")
    documents = _box(browser, ".hfa-documents")
    group = _box(browser, ".hfa-group")
    assert documents["bottom"] <= 900 and group["bottom"] <= 900, (documents, group)
    assert documents["bottom"] < _box(browser, ".hfa-context")["top"]
    links = browser.evaluate(
        "Array.from(document.querySelectorAll('.hfa-documents a')).map(a => a.href)"
    )
    assert links == ["https://f.test/1", "https://f.test/2", "https://f.test/3"]
    shown = browser.evaluate("document.querySelector('.hfa-documents').textContent")
    assert "Kestrel-MSA-2027-1.pdf" in shown and "471" in shown and "KB" in shown
    rule = browser.evaluate("document.querySelector('.hfa-group').textContent")
    assert "partner@firm.test" in rule and "2 of" not in rule
