"""Every lawyer email in the lawyer's language, from Babel catalogues; times in plain words.

Every kind of email is rendered in every catalogue while the lookups a catalogue
cannot answer are collected: none may be left. The catalogues are also checked
against the message ids extracted from the code and the templates (babel.cfg),
so a sentence added in English and not translated fails here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from html import unescape
from pathlib import Path

import pytest
from sqlalchemy import select

from gateway import i18n
from gateway.clock import FrozenClock
from gateway.intake import apikeys
from gateway.outbound import held_notices, outbox
from gateway.outbound.view import MailSettings
from gateway.services import Services, build_services
from gateway.store.models import OutboxItem, Recipient, Request, Turn
from gateway.store.thread import add_turn
from tests.conftest import LAWYER, make_config
from tests.lawyer_mails import compose_item, every_kind, file, html_of, policy_kinds, text_of

# Days before the deadlines the tests file with (Fri 4 Dec 2026).
FILED_AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

ROOT = Path(__file__).resolve().parents[2]
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


def _services(tmp_path: Path, **settings: str) -> Services:
    # A clock of its own: the emails say "due tomorrow" or "due Fri 4 Dec" by today's date.
    return build_services(make_config(tmp_path, **settings), clock=FrozenClock(FILED_AT))


@pytest.fixture
def german(tmp_path: Path) -> Iterator[Services]:
    built = _services(tmp_path, lawyer_languages=f"{LAWYER}=de", display_timezone="Europe/Berlin")
    yield built
    built.close()


@pytest.mark.parametrize("language", [lang for lang in i18n.LANGUAGES if lang != "en"])
def test_every_kind_renders_in_every_catalogue_with_nothing_left_in_english(
    tmp_path: Path, language: str
) -> None:
    built = _services(tmp_path, lawyer_languages=f"{LAWYER}={language}")
    try:
        with i18n.watching_missing() as missing:
            mails = every_kind(built, deadline="2026-12-04", client="Northwind GmbH")
            mails["held_notice"] = _held_notice(built, LAWYER)
            mails |= policy_kinds(built, deadline="2026-12-04")
    finally:
        built.close()
    assert not missing, sorted(missing)[:10]
    for kind, msg in mails.items():
        if kind == "push":  # to the agent, in the contract's English
            continue
        assert msg["Content-Language"] == language, kind
        assert f'lang="{language}"' in html_of(msg), kind


def test_a_german_lawyers_request_receipt_and_reminder_are_german(german: Services) -> None:
    mails = every_kind(german, deadline="2026-12-04")
    request, receipt, reminder = (text_of(mails[k]) for k in ("request", "receipt", "reminder"))
    assert "WAS GEFRAGT WIRD" in request and "Frist: Fr. 4 Dez. 2026" in request
    assert "MIT EINEM KLICK ANTWORTEN" in request and "SO ANTWORTEN SIE" in request
    assert "Ihre Antwort wurde erfasst" in receipt and "Sie haben GENEHMIGT" in receipt
    assert "ERINNERUNG 2" in reminder and "BLOCKIEREND" in str(mails["reminder"]["Subject"])
    assert str(mails["reminder"]["Subject"]).startswith("Erinnerung 2: “Pay EUR")
    # The quick-reply keywords stay as they are: the reply reader depends on them.
    assert "APPROVE WITH CONDITIONS" in request and "subject=APPROVE%20%5BHFA-" in request
    for text in (request, receipt, reminder):
        assert "Everything in this thread" not in text and "written by the agent" not in text


def test_the_language_is_the_lawyers_else_that_of_their_last_reply_else_the_default() -> None:
    settings = MailSettings(language="fr", languages={"de@firm.test": "de"})
    now = datetime(2026, 12, 1, tzinfo=UTC)
    replied = Turn(author="human", kind="reply", at=now, body="x", data={"from": "es@firm.test"})
    replied.data["language"] = "es-ES"
    assert settings.language_for("DE@firm.test", [replied]) == "de"
    assert settings.language_for("es@firm.test", [replied]) == "es"
    assert settings.language_for("nl@firm.test", [replied]) == "fr"
    assert MailSettings().language_for("x@firm.test", []) == "en"


def test_a_date_alone_is_that_day_with_no_invented_time(tmp_path: Path) -> None:
    built = _services(tmp_path, display_timezone="America/New_York")
    try:
        mails = every_kind(built, deadline="2026-12-04")
    finally:
        built.close()
    request = mails["request"]
    text, subject = text_of(request), str(request["Subject"])
    assert "Deadline: Fri 4 Dec 2026 (" in text and "Fri 4 Dec 2026," not in text
    assert "due Fri 4 Dec" in subject and "5 Dec" not in subject + text
    assert "<b>Fri 4 Dec 2026</b>" in html_of(request)


def _held_notice(services: Services, to: str) -> EmailMessage:
    with services.db.transaction() as session:
        item_id = held_notices.enqueue_notice(
            services,
            session,
            to=to,
            at=services.clock.now(),
            payload={
                "reason": "it did not come from the address the request was sent to.",
                "what_to_do": "answer with your mail program's Reply button on the original "
                "email, without changing the address it replies to.",
                "received_at": "2026-12-01T20:21:47.512841Z",
                "their_message_id": "<held-1@home.test>",
                "inbound_id": 47,
            },
            request_id=None,
            reference=None,
        )
    with services.db.read_only() as session:
        item = session.get(OutboxItem, item_id)
        assert item is not None
        return held_notices.compose_notice(services, item)


def test_no_push_or_notice_carries_an_iso_timestamp_and_every_email_has_a_list_id(
    tmp_path: Path,
) -> None:
    built = _services(tmp_path, display_timezone="Europe/Berlin")
    try:
        mails = every_kind(built)
        mails["held_notice"] = _held_notice(built, "jane@home.test")
    finally:
        built.close()
    for kind, msg in mails.items():
        assert msg["List-Id"] == "Human for AI requests <hfa.hfa.example>", kind
        for part in (text_of(msg), html_of(msg)):
            assert not ISO.search(part), (kind, ISO.search(part))
    held = text_of(mails["held_notice"])
    assert "Your email of Tue 1 Dec 2026, 21:21 CET was NOT recorded." in held
    assert max(len(line) for line in held.splitlines()) <= 78
    assert "rejected the proposed action" in text_of(mails["push"])


def test_client_and_matter_come_from_the_request_and_from_the_key(tmp_path: Path) -> None:
    built = _services(tmp_path)
    try:
        with built.db.transaction() as session:
            apikeys.create_key(built, session, "procurement-prod", client="Acme Robotics GmbH")
        mails = every_kind(built, client="Globex Ltd", matter="M-2026-17")
        request = text_of(mails["request"])
        html = html_of(mails["request"])
        assert "For: Acme Robotics GmbH (set by the API key); the agent says: Globex Ltd" in request
        assert "Matter: M-2026-17 (the agent's claim)" in request
        assert "Acme Robotics GmbH</b> (set by the API key)" in html
        assert "M-2026-17</b> (the agent's claim)" in unescape(html)
        assert "Other details" not in html  # named fields, not leftovers
        assert "For: Acme Robotics GmbH" in str(mails["request"].get_body(("html",)))
        with built.db.read_only() as session:
            listed = apikeys.list_keys(built, session)
        assert [(k.client, k.matter) for k in listed if k.name == "procurement-prod"] == [
            ("Acme Robotics GmbH", None)
        ]
    finally:
        built.close()


def test_the_three_asks_of_the_review_keep_their_verbs_in_the_subject(tmp_path: Path) -> None:
    built = _services(tmp_path)
    asks = {
        "Is clause 7 (limitation of liability) acceptable for us as the supplier?": "acceptable",
        "Please approve the payment of EUR 62,000.00 to Kraftwerk Logistics GmbH.": "approve",
        "May we accept Zoom's updated Terms of Service for our sales team?": "accept",
    }
    try:
        for ask in asks:
            file(built, request=ask, urgency="soon", deadline="2026-12-04")
        with built.db.read_only() as session:
            items = session.query(OutboxItem).filter(OutboxItem.purpose == "request").all()
            ids = [i.id for i in items]
        from tests.lawyer_mails import compose_item

        subjects = [str(compose_item(built, i)["Subject"]) for i in ids]
    finally:
        built.close()
    for verb, line in zip(asks.values(), subjects, strict=True):
        assert verb in line and "due Fri 4 Dec" in line, line
        assert len(line) <= 78


def test_reminder_subjects_carry_blocking_and_the_time_left(tmp_path: Path) -> None:
    built = _services(tmp_path)
    try:
        mails = every_kind(built)
    finally:
        built.close()
    subject = str(mails["reminder"]["Subject"])
    assert subject.startswith("Reminder 2: “Pay EUR"), subject
    assert " · BLOCKING · due in " in subject and subject.endswith("]"), subject


def test_a_notice_about_an_open_request_never_also_says_no_answer_is_needed(
    tmp_path: Path,
) -> None:
    built = _services(tmp_path)
    try:
        mails = every_kind(built)
    finally:
        built.close()
    for kind in ("escalated_notice", "deadline_passed"):
        text, html = text_of(mails[kind]), html_of(mails[kind])
        assert "your answer is still wanted" in text, kind
        assert "No answer is needed" not in text and "No answer is needed" not in html, kind
        assert "subject=APPROVE%20%5BHFA-" in text and "hfa-answers" in html, kind
        assert "BLOCKING" in text, kind
    for kind in ("closed", "withdrawal"):
        assert "no answer is needed" in text_of(mails[kind]).lower(), kind
        assert "hfa-answers" not in html_of(mails[kind]), kind


def test_a_german_lawyer_reads_the_approval_policy_lines_in_german(german: Services) -> None:
    mails = policy_kinds(german)
    # The stored count with shortened addresses is no longer printed: the group block,
    # from the request's own policy, tells the tally with every name (tests/outbound/
    # test_group.py).
    tally = " ".join(text_of(mails["tally_receipt"]).split())
    assert "Genehmigungsregel:" not in tally and "partner@," not in tally
    decided = mails["decided_notice"]
    assert str(decided["Subject"]).startswith("Entschieden: GENEHMIGT MIT BEDINGUNGEN: “Pay")
    assert "Entschieden: GENEHMIGT MIT BEDINGUNGEN" in html_of(decided)
    assert "Die Stimmen widersprechen sich" in " ".join(text_of(decided).split())
    assert "Vertretung von partner@lawfirm.example" in text_of(mails["delegate_request"])
    assert "Noch keine Antwort von: partner@lawfirm.example." in " ".join(
        text_of(mails["escalation_waiting"]).split()
    )


def _receipt_of_undecided_reply(services: Services, body: str) -> EmailMessage:
    """The receipt of a reply from which no decision was read, composed as it is sent."""
    request_id = file(services)
    now = services.clock.now()
    with services.db.transaction() as session:
        request = session.get(Request, request_id)
        recipient = session.scalars(
            select(Recipient).where(Recipient.request_id == request_id)
        ).first()
        assert request is not None and recipient is not None
        turn = add_turn(
            session, request, author="human", kind="reply", at=now, body=body,
            data={"from": recipient.address, "decision": None, "answer": "no",
                  "because": body.splitlines()[0], "language": "de"},
        )  # fmt: skip
        session.flush()
        item_id = outbox.enqueue_lawyer_email(
            services, session, request, recipient, purpose="receipt", at=now,
            payload={"kind_label": "reply", "decision": None, "body": body,
                     "turn_seq": turn.seq, "recorded_at": "2026-12-01T10:00:00Z",
                     "status": "answered"},
        )  # fmt: skip
    return compose_item(services, item_id)


def test_a_german_lawyers_receipt_of_a_reply_with_no_decision_is_all_german(
    german: Services,
) -> None:
    # A German lawyer answered "nein, so bitte nicht unterschreiben": read as no decision.
    with i18n.watching_missing() as missing:
        receipt = _receipt_of_undecided_reply(german, "nein, so bitte nicht unterschreiben.")
    text, html = " ".join(text_of(receipt).split()), unescape(html_of(receipt))
    assert not missing, sorted(missing)
    assert "Aus Ihrer Antwort wurde keine Entscheidung gelesen" in text
    for said in (text, html):
        assert "The agent sees only your text" not in said
        assert "Der Agent sieht nur Ihren Text." in " ".join(said.split())


def test_no_sentence_for_a_lawyer_is_marked_inside_an_f_string() -> None:
    # Babel's extractor reads a Python 3.11 f-string as one string token: a _() inside it
    # is never extracted, so the catalogue check above cannot see it go untranslated.
    inside = re.compile(r"""\bf(["'])[^"'\n]*\{\s*(?:_|N_|ngettext)\(""")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "gateway").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if inside.search(line)
    ]
    assert not found, found


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_every_kinds_subject_keeps_the_asks_first_words_in_every_language(
    tmp_path: Path, language: str
) -> None:
    """The prefix and the tags give way, never the ask ("Complément de l'agent :
    “Please review…”" told a lawyer nothing)."""
    built = _services(tmp_path, lawyer_languages=f"{LAWYER}={language}")
    ask = "Please review clause 7.3 of the Kestrel master services agreement before we sign"
    try:
        mails = every_kind(built, request=ask, deadline="2026-12-04T14:00:00Z")
        mails |= policy_kinds(built, request=ask)
    finally:
        built.close()
    for kind, msg in mails.items():
        if kind == "push":
            continue
        subject = str(msg["Subject"])
        assert "“Please review clause" in subject, (kind, subject)
        assert len(subject) <= 78, (kind, subject)
