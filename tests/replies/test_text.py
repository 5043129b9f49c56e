"""extract_reply: the case table plus focused checks of the text rules."""

from __future__ import annotations

import pytest

from gateway.replies import DecisionKind, ReplyError, ReplyText, extract_reply, read_decision
from tests.budget import cpu_budget
from tests.replies.cases import CASES, Case


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_new_text_of_case(case: Case) -> None:
    reply = extract_reply(case.plain, case.html)
    assert reply.new_text == case.new_text
    assert reply.confident is case.confident


def test_case_table_is_big_enough() -> None:
    assert len(CASES) >= 70
    assert len({case.name for case in CASES}) == len(CASES)


def test_quoted_history_goes_to_elided() -> None:
    reply = extract_reply(
        "Approved.\n\nOn Mon, Mar 4, 2024 at 10:12 AM A <a@example.com> wrote:\n> Please review\n",
        None,
    )
    assert reply.new_text == "Approved."
    assert "> Please review" in reply.elided
    assert "wrote:" in reply.elided


@pytest.mark.parametrize(
    ("plain", "html"),
    [(None, None), ("", None), ("  \n\t", None), (None, ""), (None, "<p> </p>"), ("", "<br>")],
)
def test_no_text_gives_empty_result(plain: str | None, html: str | None) -> None:
    assert extract_reply(plain, html) == ReplyText("", "", False)


def test_forward_without_answer_is_whole_and_not_confident() -> None:
    text = "-----Original Message-----\nFrom: a@example.com\nSent: Monday\n\nHello"
    reply = extract_reply(text, None)
    assert reply == ReplyText(text, "", False)


def test_nul_bytes_and_control_characters_are_dropped() -> None:
    reply = extract_reply("Appro\x00ved.\x07\r\n\r\n> quoted\r\n", None)
    assert reply.new_text == "Approved."


def test_lone_surrogates_are_replaced() -> None:
    text = b"Approved \xff\xfe.".decode("utf-8", errors="surrogateescape")
    reply = extract_reply(text, None)
    assert reply.new_text == "Approved \ufffd\ufffd."
    reply.new_text.encode("utf-8")


def test_wrong_types_raise_reply_error() -> None:
    with pytest.raises(ReplyError):
        extract_reply(b"bytes", None)  # type: ignore[arg-type]


def test_oversized_input_raises_reply_error() -> None:
    with pytest.raises(ReplyError):
        extract_reply("x" * 5_000_001, None)


def _thread(size: int) -> str:
    turn = (
        "Approved, subject to the points below.\n\n"
        "On Mon, Mar 4, 2024 at 10:12 AM HFA Gateway <review@hfa.example.com> wrote:\n"
        "> Please review the attached supplier contract and reply APPROVE or REJECT.\n"
        "> The counterparty asked for a liability cap of EUR 500k.\n>\n"
    )
    return (turn * (size // len(turn) + 1))[:size]


@pytest.mark.parametrize(
    ("plain", "html"),
    [
        (_thread(1_000_000), None),
        ("x" * 1_000_000, None),
        ("On 1 " + "wrote " * 166_000 + ":", None),
        (("Regards,\n" * 111_111), None),
        (None, "<p>Approved.</p>" + "<div>Hello world, quoted history.</div>" * 25_000),
        (None, "<" * 1_000_000),
        (None, "<div>x" * 166_000),
    ],
    ids=["thread", "one_line", "wrote_words", "signoffs", "html", "html_lt", "html_nested"],
)
def test_one_megabyte_is_fast(plain: str | None, html: str | None) -> None:
    # About 1 s of CPU: the budget catches runaway backtracking (minutes of it), and
    # the machine's load does not count (the timing itself: hfa bench).
    with cpu_budget(20.0):
        reply = extract_reply(plain, html)
    assert reply.new_text


def _outlook(*lines: str) -> str:
    """An HTML-only reply from Outlook: every typed line is a margin-less MsoNormal paragraph,
    an empty line one holding only &nbsp;."""
    body = "".join(f'<p class="MsoNormal">{line}<o:p></o:p></p>' for line in lines)
    return f'<html><body><div class="WordSection1">{body}</div></body></html>'


def test_outlook_lines_keep_the_lawyers_paragraphs() -> None:
    html = _outlook(
        "APPROVE", "&nbsp;", "Notes (optional):", "only if the cap stays at 10k", "&nbsp;",
        "Anna Weber", "Partner | Weber &amp; Co",
    )  # fmt: skip
    assert extract_reply(None, html).new_text == (
        "APPROVE\n\nNotes (optional):\nonly if the cap stays at 10k\n\nAnna Weber\n"
        "Partner | Weber & Co"
    )
    held = _outlook("Approved", "but don't sign until Finance confirms.")
    assert extract_reply(None, held).new_text == "Approved\nbut don't sign until Finance confirms."


def test_under_an_outlook_approve_link_the_signature_is_no_condition() -> None:
    html = _outlook(
        "APPROVE", "&nbsp;", "Notes (optional):", "only if the cap stays at 10k", "&nbsp;",
        "Anna Weber", "Partner | Weber &amp; Co",
    )  # fmt: skip
    decision = read_decision(extract_reply(None, html).new_text, "APPROVE [HFA-00001]")
    assert decision.kind is DecisionKind.APPROVAL
    assert decision.conditions == ("only if the cap stays at 10k",)
