"""Headers read as the strict policy decodes them, whether or not decoding can be skipped."""

from __future__ import annotations

from email.message import Message
from email.policy import default

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.inbound.mailparse import HeaderView, _kept_strict, strict_header
from gateway.inbound.reading import parse_stored

NAMES = ("subject", "references", "in-reply-to", "auto-submitted", "message-id", "from")
# Printable ASCII, the characters that matter to encoded words and structure, controls.
PIECES = [chr(c) for c in range(0x20, 0x7F)] + ["\t", "=?", "?=", "\x00", "\x1b", "\x7f", "é"]
VALUES = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def strict(name: str, value: str) -> str:
    try:
        return str(default.header_factory(name, value))
    except Exception:
        return value


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_every_header_reads_as_the_strict_policy_decodes_it(value: str) -> None:
    message = Message()
    for name in NAMES:
        message[name] = value
    view = HeaderView(message)
    for name in NAMES:
        assert view[name] == strict(name, value)


def test_encoded_words_are_decoded() -> None:
    message = Message()
    message["Subject"] = "=?utf-8?q?Re:_=C3=A9t=C3=A9?="
    message["References"] = "<a@b>  <c@d>"
    view = HeaderView(message)
    assert view["subject"] == "Re: été"
    assert view["references"] == "<a@b>  <c@d>"


@settings(max_examples=300, deadline=None)
@given(VALUES, st.sampled_from(("From", "from", "FROM", "To", "Content-Type")))
def test_a_kept_header_is_the_one_the_strict_policy_reads(value: str, name: str) -> None:
    try:
        fresh = default.header_factory(name, value)
    except Exception:
        return
    for _ in range(2):  # the first time parsed, the second time kept
        kept = strict_header(name, value)
        assert str(kept) == str(fresh)
        assert getattr(kept, "addresses", ()) == getattr(fresh, "addresses", ())
        assert [type(d) for d in kept.defects] == [type(d) for d in fresh.defects]


def test_a_reply_has_its_from_parsed_strictly_once() -> None:
    # The sender check and the automatic-reply check both read From: one parse serves both.
    raw = (
        b"From: Dana Counsel <dana.once@firm.example>\r\n"
        b"To: reply+x@reply.test\r\n"
        b"Subject: Re: [HFA-00001] Review\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\n\r\n"
        b"Approved.\r\n"
    )
    seen: list[str] = []
    registry = type(default.header_factory)
    original = registry.__call__

    def counting(self: object, name: str, value: str) -> object:
        seen.append(name.lower())
        return original(self, name, value)  # type: ignore[arg-type]

    registry.__call__ = counting  # type: ignore[method-assign]
    try:
        parsed = parse_stored(raw)
    finally:
        registry.__call__ = original  # type: ignore[method-assign]
    assert not isinstance(parsed, Exception)
    assert parsed.sender == ("dana.once@firm.example", "")
    assert seen.count("from") == 1


def test_a_long_header_is_not_kept() -> None:
    value = "Dana <dana@firm.example> (" + "x" * 3000 + ")"
    before = _kept_strict.cache_info().currsize
    strict_header("From", value)
    assert _kept_strict.cache_info().currsize == before
    assert str(strict_header("From", value)) == str(default.header_factory("From", value))
