"""Every kind of email, rendered in a real headless Chromium at phone and desktop width.

What is asserted is what a lawyer would check on screen: nothing runs off
the right edge (even with a 5,000-character URL in the agent's text), the
summary and the answer buttons are on the first phone screen, and dark mode
keeps every visible text readable. Set HFA_SHOTS=/some/dir to keep PNGs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

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
    built = build_services(make_config(tmp_path))
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
