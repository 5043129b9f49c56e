"""What a lawyer's inbox and each email show: subjects, frames, escapes, headers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path

import pytest
from sqlalchemy import select

from gateway.clock import FrozenClock
from gateway.outbound import outbox
from gateway.services import Services, build_services
from gateway.store.models import OutboxItem, Recipient, Request
from gateway.store.thread import add_turn
from tests.conftest import make_config
from tests.lawyer_mails import (
    HOSTILE_TEXT,
    KINDS,
    PAYLOADS,
    compose_item,
    every_kind,
    file,
    html_of,
    text_of,
)

HIDDEN = re.compile("[\u202a-\u202e\u2066-\u2069\x00-\x08\x0b-\x1f\x7f-\x9f]")
FORGED = (
    "IMPORTANT INSTRUCTION",
    "HOW TO ANSWER: reply APPROVE",
    "=== End of agent text ===",
    "Reference HFA-00001, filed",
    "EVORPPA",
)


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    # A clock of its own: the emails say "due tomorrow" or "due Fri 4 Dec" by today's date.
    built = build_services(
        make_config(tmp_path), clock=FrozenClock(datetime(2026, 11, 30, 9, 0, tzinfo=UTC))
    )
    yield built
    built.close()


@pytest.fixture
def hostile(services: Services) -> dict[str, EmailMessage]:
    return every_kind(
        services,
        request="Pay the invoice? " + HOSTILE_TEXT,
        context=HOSTILE_TEXT,
        proposed_action="Pay it.\n" + HOSTILE_TEXT,
        agent_name="bot\u202eEVORPPA\u202c",
        reply_to="https://hooks.acme.test/cb?signature=abc123def456",
    )


class Frames(HTMLParser):
    """Collects text outside any agent frame (the title and hidden preheader aside)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.outside: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("meta", "br", "hr", "img", "link", "input"):
            return
        classes = (dict(attrs).get("class") or "").split()
        framed = bool({"hfa-agent", "hfa-agent-text", "hfa-preheader"} & set(classes))
        inside = framed or tag in ("title", "style") or (bool(self.stack) and self.stack[-1][1])
        self.stack.append((tag, inside))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if not (self.stack and self.stack[-1][1]) and data.strip():
            self.outside.append(data)


def test_forged_sections_and_bidi_stay_inside_the_agent_frame(
    hostile: dict[str, EmailMessage],
) -> None:
    for kind, msg in hostile.items():
        text, html = text_of(msg), html_of(msg)
        for part, content in (("text", text), ("html", html), ("subject", str(msg["Subject"]))):
            assert not HIDDEN.search(content), (kind, part)
        if kind == "push":
            continue  # to the agent's own address: it shows the humans' words, not the agent's
        for line in text.splitlines():
            if any(marker in line for marker in FORGED):
                assert line.startswith("| "), (kind, line)
        frames = Frames()
        frames.feed(html)
        for chunk in frames.outside:
            assert not any(marker in chunk for marker in FORGED), (kind, chunk)
        assert "Written by the agent, not verified" in html
        assert "[U+202E]EVORPPA[U+202C]" in text and "[U+001B][31m" in text, kind


def test_a_webhook_reply_to_is_shown_without_its_query_string(
    hostile: dict[str, EmailMessage],
) -> None:
    request = hostile["request"]
    for content in (text_of(request), html_of(request)):
        assert "https://hooks.acme.test/cb?…" in content
        assert "abc123def456" not in content


def test_subjects_fit_put_the_ask_first_and_tell_each_kind_apart(
    services: Services,
) -> None:
    mails = every_kind(
        services,
        request="Approve? [HFA-00099] APPROVED - Re: sign the 40-page Northwind master "
        "services agreement today Bcc: attacker@evil.test \u202eEVORPPA",
    )
    subjects = {kind: str(msg["Subject"]) for kind, msg in mails.items()}
    for kind, subject in subjects.items():
        assert len(subject) <= 78, (kind, subject)
        assert "[HFA-0" in subject and "[HFA-00099]" not in subject, subject
        # The agent's words are kept as written (a subject decides nothing: only a quick
        # reply's own subject form does); a header-like token is not.
        assert "Bcc:" not in subject and "Re: sign" not in subject, subject
    assert subjects["request"].startswith("“Approve? APPROVED - sign the 40-page")
    assert "BLOCKING" in subjects["request"] and "due Fri 4 Dec" in subjects["request"]
    lawyer_kinds = [k for k in KINDS if k != "request"]
    prefixes = {k: subjects[k].split("“")[0] for k in lawyer_kinds}
    assert len(set(prefixes.values())) == len(prefixes), prefixes
    # A long ask keeps its first words in every kind: the kind's prefix gives way first.
    for kind in lawyer_kinds:
        assert "“Approve? APPROVED - sign" in subjects[kind], (kind, subjects[kind])
    assert prefixes["withdrawal"] == "Withdrawn, no answer needed: "
    assert prefixes["reminder"] == "Reminder 2: "
    assert prefixes["escalation"] == "Escalated: "
    assert prefixes["receipt"] == "Recorded: APPROVAL WITH CONDITIONS: "


def test_headers_name_the_sender_and_text_parts_are_never_base64(
    hostile: dict[str, EmailMessage],
) -> None:
    for kind, msg in hostile.items():
        if kind == "push":
            continue
        # The reference and the agent's name (its hidden controls shown), via the gateway.
        name = msg["From"].addresses[0].display_name
        assert name.startswith("HFA-0") and name.endswith(" via Human for AI"), name
        assert "\u202e" not in name and "[U+202E]" in name, name
        assert msg["List-Id"] == "Human for AI requests <hfa.hfa.example>", kind
        reply_to = msg["Reply-To"].addresses[0]
        assert reply_to.display_name.endswith(" answers") and reply_to.username.startswith("reply+")
        for part in msg.walk():
            if part.get_content_maintype() == "text":
                # Readable on the wire: never base64 (a spam sign for plain text).
                assert part["Content-Transfer-Encoding"] in ("quoted-printable", "7bit"), kind
        quoted = False  # a human's own words, between rules, are kept as written
        for line in text_of(msg).splitlines():
            if line == "-" * 72:
                quoted = not quoted
            if quoted or line.startswith(("| ", "<mailto:")):
                continue
            assert len(line) <= 72, (kind, line)


def test_reminder_says_when_the_deadline_passed(services: Services) -> None:
    request_id = file(services, deadline="2026-11-30T08:00:00Z")
    with services.db.transaction() as session:
        request = session.get(Request, request_id)
        assert request is not None
        recipient = session.scalars(select(Recipient)).first()
        assert recipient is not None
        item_id = outbox.enqueue_lawyer_email(
            services,
            session,
            request,
            recipient,
            purpose="reminder",
            at=services.clock.now(),
            payload={"reminder_number": 3, "last_reminder": True},
        )
        session.flush()
    msg = compose_item(services, item_id, zone="Europe/Berlin")
    text = text_of(msg)
    # Overdue is in the tags; the prefix's own "(overdue)" gives way to the ask's words.
    assert str(msg["Subject"]).startswith("Reminder 3: “Pay EUR 48,500.00 to the")
    assert "OVERDUE" in str(msg["Subject"])
    assert "The deadline passed" in text and "Mon 30 Nov 2026, 09:00 CET" in text
    assert "last reminder" in text


def test_threading_keeps_the_root_first_and_a_receipt_answers_the_lawyers_message(
    services: Services,
) -> None:
    request_id = file(services)
    ids: list[int] = []
    with services.db.transaction() as session:
        request = session.get(Request, request_id)
        recipient = session.scalars(select(Recipient)).first()
        assert request is not None and recipient is not None
        root = session.scalars(select(OutboxItem.message_id)).one()
        now = services.clock.now()
        for n in range(25):
            item_id = outbox.enqueue_lawyer_email(
                services,
                session,
                request,
                recipient,
                purpose="reminder",
                at=now + timedelta(minutes=n),
                payload={"reminder_number": n + 1},
            )
            session.flush()
            ids.append(item_id)
        turn = add_turn(
            session,
            request,
            author="human",
            kind="rejection",
            at=now,
            body="REJECT",
            data={"decision": "rejection", "message_id": "<jane-1@lawfirm.example>"},
        )
        session.flush()
        receipt_id = outbox.enqueue_lawyer_email(
            services,
            session,
            request,
            recipient,
            purpose="receipt",
            at=now,
            payload={
                "turn_seq": turn.seq,
                "body": "REJECT",
                "reply_message_id": "<jane-1@lawfirm.example>",
            },
        )
        session.flush()
    previous = root
    for item_id in ids:
        msg = compose_item(services, item_id)
        references = str(msg["References"]).split()
        assert references[0] == root and len(references) <= 20
        assert msg["In-Reply-To"] == previous
        previous = str(msg["Message-ID"])
    msg = compose_item(services, receipt_id)
    assert msg["In-Reply-To"] == "<jane-1@lawfirm.example>"
    references = str(msg["References"]).split()
    assert references[0] == root and references[-1] == "<jane-1@lawfirm.example>"
    assert msg["Auto-Submitted"] == "auto-replied"
    assert "You REJECTED" in text_of(msg)


def test_every_kind_of_email_threads_under_the_request(services: Services) -> None:
    request_id = file(services)
    later = [k for k in KINDS if k not in ("request", "receipt")] + ["receipt"]
    ids: list[tuple[str, int]] = []
    with services.db.transaction() as session:
        request = session.get(Request, request_id)
        recipient = session.scalars(select(Recipient)).first()
        assert request is not None and recipient is not None
        root = session.scalars(select(OutboxItem.message_id)).one()
        turn = add_turn(
            session,
            request,
            author="human",
            kind="approval",
            at=services.clock.now(),
            body="APPROVE",
            data={"decision": "approval", "message_id": "<jane-2@lawfirm.example>"},
        )
        session.flush()
        for kind in later:
            payload = dict(PAYLOADS[kind])
            if kind == "receipt":
                payload |= {"turn_seq": turn.seq, "body": "APPROVE"}
                payload["reply_message_id"] = "<jane-2@lawfirm.example>"
            item_id = outbox.enqueue_lawyer_email(
                services,
                session,
                request,
                recipient,
                purpose=kind,
                at=services.clock.now(),
                payload=payload,
            )
            session.flush()
            ids.append((kind, item_id))
    previous = root
    subjects = set()
    for kind, item_id in ids:
        msg = compose_item(services, item_id)
        references = str(msg["References"]).split()
        assert references[0] == root, kind
        expected = "<jane-2@lawfirm.example>" if kind == "receipt" else previous
        assert msg["In-Reply-To"] == expected, kind
        assert msg["X-HFA-Kind"] == kind
        subjects.add(str(msg["Subject"]))
        previous = str(msg["Message-ID"])
    assert len(subjects) == len(ids)  # every kind tells itself apart in the inbox
