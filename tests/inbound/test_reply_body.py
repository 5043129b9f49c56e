"""The text a reply's turn records, and whether it says anything: worked out before the
write transaction, and the same as worked out under it."""

from __future__ import annotations

from gateway.inbound.ahead import ahead_of
from gateway.inbound.mailparse import ParsedMail
from gateway.inbound.reading import parse_stored
from gateway.inbound.reply_body import body_of, recorded_body
from gateway.services import Services


def message(body: str, subject: str = "Re: [HFA-00001] Supplier agreement") -> bytes:
    return (
        "From: Dana Counsel <dana@firm.example>\r\n"
        "To: reply+x@reply.test\r\n"
        f"Subject: {subject}\r\n"
        "Message-ID: <answer-1@firm.example>\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\n" + body.replace("\n", "\r\n")
    ).encode()


def test_the_prompt_of_an_answer_link_left_empty_is_not_recorded() -> None:
    body, says_nothing = recorded_body("APPROVE\n\nNotes (optional):\n- \n- \n")
    assert "Notes (optional):" not in body
    assert "APPROVE" in body
    assert not says_nothing


def test_thanks_and_a_name_say_nothing() -> None:
    assert recorded_body("Thanks,\nDana")[1]
    assert not recorded_body("Thanks. Approved.\nDana")[1]


def test_the_worker_works_it_out_before_the_transaction(services: Services) -> None:
    mail = parse_stored(message("Approved, but only for Acme GmbH.\n\nDana"))
    assert isinstance(mail, ParsedMail) and mail.recorded_body is None
    ahead_of(services, mail)
    assert mail.recorded_body is not None
    assert mail.recorded_body[1:] == recorded_body(mail.recorded_body[0])
    assert body_of(mail, mail.recorded_body[0]) == mail.recorded_body[1:]


def test_what_was_worked_out_from_another_text_is_not_used(services: Services) -> None:
    mail = parse_stored(message("Thanks,\nDana"))
    assert isinstance(mail, ParsedMail)
    ahead_of(services, mail)
    assert mail.recorded_body is not None and mail.recorded_body[2]
    # Asked about another text, the answer is that text's, never the one kept.
    assert body_of(mail, "Rejected: the cap is too low.") == (
        "Rejected: the cap is too low.",
        False,
    )
