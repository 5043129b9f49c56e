"""Outgoing mail written straight to bytes reads back, in any parser, as what was meant."""

from __future__ import annotations

import binascii
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.outbound.mime import ENCODED_CHUNK, OutgoingMail, _encoded_words, header_line

HEADERS = [
    ("From", "gateway@hfa.example"),
    ("To", "counsel@lawfirm.example"),
    ("Subject", "[HFA-00001] Legal review: May I sign?"),
    ("Message-ID", "<hfa.abc.123@hfa.example>"),
]


def parsed(mail: OutgoingMail) -> EmailMessage:
    message = message_from_bytes(mail.as_bytes(), policy=default)
    assert isinstance(message, EmailMessage)
    return message


def bodies(message: EmailMessage) -> tuple[str, str]:
    text, html = message.get_body(("plain",)), message.get_body(("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


def test_headers_and_both_parts_read_back() -> None:
    text, html = "Hello\nSecond line\n", "<p>Hello</p>\n"
    message = parsed(OutgoingMail(HEADERS, text, html))
    for name, value in HEADERS:
        assert message[name] == value
    assert message.get_content_type() == "multipart/alternative"
    assert bodies(message) == (text, html)


def test_non_ascii_subject_and_long_lines_are_encoded() -> None:
    subject = "[HFA-00002] Légal review: « contrat » — signer aujourd'hui ? " + "é" * 80
    text = "Zürich " * 40 + "\n= equals and trailing space \n"
    raw = OutgoingMail([("Subject", subject)], text, "<p>ü</p>\n").as_bytes()
    assert raw.isascii()
    assert all(len(line) <= 78 for line in raw.split(b"\n"))
    message = message_from_bytes(raw, policy=default)
    assert isinstance(message, EmailMessage)
    assert message["Subject"] == subject
    assert bodies(message)[0] == text


def test_long_references_are_folded_and_read_back_whole() -> None:
    ids = " ".join(f"<hfa.{n:031d}.0123456789ab@hfa.example>" for n in range(20))
    raw = OutgoingMail([("References", ids)], "x\n", "y\n").as_bytes()
    assert max(len(line) for line in raw.split(b"\n")) <= 78
    assert message_from_bytes(raw, policy=default)["References"] == ids


def test_a_line_break_in_a_header_value_is_refused() -> None:
    with pytest.raises(ValueError, match="line break"):
        header_line("Subject", "hello\r\nBcc: victim@example.com")


def test_a_non_ascii_address_is_written_by_the_email_package() -> None:
    mail = OutgoingMail([("To", "jürgen@kanzlei.example"), ("Subject", "s")], "x\n", "y\n")
    message = message_from_bytes(mail.as_bytes(), policy=default)
    assert message["To"] == "jürgen@kanzlei.example"


@settings(max_examples=150, deadline=None)
@given(
    st.text(st.characters(codec="utf-8", exclude_characters="\r"), max_size=300),
    st.text(
        st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\r\n"),
        min_size=1,
        max_size=120,
    ),
)
def test_any_text_and_subject_read_back_unchanged(text: str, subject: str) -> None:
    subject = " ".join(subject.split()) or "s"
    text = text if text.endswith("\n") else text + "\n"
    message = parsed(OutgoingMail([("Subject", subject)], text, "<p>x</p>\n"))
    assert message["Subject"] == subject
    assert bodies(message)[0] == text


def _greedy_words(value: str) -> list[bytes]:
    """Encoded words as a character-by-character walk writes them: the reference."""
    words: list[bytes] = []
    chunk = b""
    for char in value:
        octets = char.encode("utf-8")
        if len(chunk) + len(octets) > ENCODED_CHUNK:
            words.append(chunk)
            chunk = b""
        chunk += octets
    return [*words, chunk] if chunk else words


@pytest.mark.parametrize(
    "value",
    [
        "é",
        "HFA-00008 · procurement-bot via Human for AI",
        "Prüfung der Haftungsbegrenzung (Ziffer 7.2) – Unterschrift bis Freitag…",
        "契約書の責任制限条項を承認してよいですか" * 3,
        "🙂" * 11 + "a" + "🙂" * 11,
        "a" * 41 + "é" + "b" * 42 + "€",
        "مرحبا بالعالم، هل يمكنني قبول البند؟",
    ],
)
def test_encoded_words_take_as_many_whole_characters_as_fit(value: str) -> None:
    words = _encoded_words(value)
    decoded = [binascii.a2b_base64(w.removeprefix("=?utf-8?b?").removesuffix("?=")) for w in words]
    assert decoded == _greedy_words(value)
    assert b"".join(decoded).decode("utf-8") == value


def _folded_word_by_word(name: str, value: str) -> str:
    """Folding as a walk over every word writes it: the reference."""
    line, lines = f"{name}:", []
    for word in value.split(" "):
        if len(line) + 1 + len(word) > 78 and line not in ("", f"{name}:"):
            lines.append(line)
            line = ""
        line += " " + word
    return "\n".join([*lines, line])


@pytest.mark.parametrize("length", [0, 1, 60, 68, 69, 70, 71, 72, 79, 140])
def test_a_header_is_folded_as_a_walk_over_its_words_folds_it(length: int) -> None:
    for value in ("x" * length, ("ab " * length)[:length], ("a  b " * length)[:length]):
        assert header_line("Subject", value) == _folded_word_by_word("Subject", value)
