"""The email a lawyer receives, built from an outbox row."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from gateway.intake.filing import file_request
from gateway.outbound.compose import compose_lawyer_email, header_safe, subject_for
from gateway.services import Services
from gateway.store.models import OutboxItem, Request


def compose_first(services: Services, **fields: Any) -> Any:
    with services.db.transaction() as session:
        file_request(
            services, session, {"category": "legal_review", "request": "Read it."} | fields
        )
    with services.db.read_only() as session:
        item = session.scalars(select(OutboxItem)).one()
        return compose_lawyer_email(
            session,
            item,
            renderer=services.renderer,
            mail_from="gw@hfa.example",
            reply_address="reply+x@hfa.example",
            loop_marker="hfa.example",
        )


def test_thread_ids_named_by_the_filing_are_honoured(services: Services) -> None:
    msg = compose_first(
        services,
        email_in_reply_to_message_id="<prev-2@agent.example>",
        email_references_message_id="<prev-1@agent.example>",
    )
    assert msg["In-Reply-To"] == "<prev-2@agent.example>"
    assert msg["References"] == "<prev-1@agent.example> <prev-2@agent.example>"


def test_a_malformed_thread_id_cannot_inject_a_header(services: Services) -> None:
    msg = compose_first(services, email_in_reply_to_message_id="<a@b>\r\nBcc: victim@example.com")
    assert msg["In-Reply-To"] is None and msg["Bcc"] is None


def test_header_safe_flattens_and_caps() -> None:
    assert header_safe("a\r\nb\tc") == "a b c"
    assert header_safe("x" * 200, 10) == "x" * 9 + "…"


def test_subject_puts_the_ask_first_then_blocking_and_the_reference(services: Services) -> None:
    with services.db.transaction() as session:
        file_request(
            services,
            session,
            {"category": "physical_action", "request": "Post the\nletter", "urgency": "blocking"},
        )
    with services.db.read_only() as session:
        request = session.scalars(select(Request)).one()
        item = session.scalars(select(OutboxItem)).one()
        assert subject_for(request, item) == "“Post the” · BLOCKING [HFA-00001]"
