"""Property tests: any input gives a result or ReplyError, quickly; no negated approval."""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.replies import (
    DecisionKind,
    ReplyError,
    ReplyText,
    detect_automatic,
    extract_reply,
    read_decision,
)
from gateway.replies.bounces import find_bounced_message_ids
from tests.budget import cpu_budget

# Fragments that make the generated text look like mail, so the interesting
# code paths (attributions, quotes, headers, signatures) are exercised.
_MAIL_BITS = st.sampled_from(
    [
        "\n",
        "> ",
        "On Mon, Mar 4, 2024 at 10:12 AM A <a@b.c> wrote:\n",
        "-----Original Message-----\n",
        "From: a@b.c\nSent: Monday\nTo: x\nSubject: y\n",
        "-- \n",
        "Best regards,\n",
        "Sent from my iPhone\n",
        "Approved",
        "- condition\n",
        '<div class="gmail_quote">',
        "<blockquote>",
        "</blockquote>",
        "<br>",
        "&nbsp;",
        "\x00",
        "\r",
        "\ud800",
    ]
)
_MAILISH = st.lists(st.one_of(st.text(max_size=40), _MAIL_BITS), max_size=30).map("".join)
_ANY_TEXT = st.one_of(st.text(), _MAILISH)
_DECODED_BYTES = st.tuples(st.binary(), st.sampled_from(["replace", "surrogateescape"])).map(
    lambda pair: pair[0].decode("utf-8", errors=pair[1])
)
_CPU_BUDGET = 2.0  # seconds of this thread's CPU per input


def _extract_or_error(plain: str | None, html: str | None) -> ReplyText | None:
    with cpu_budget(_CPU_BUDGET):
        try:
            result: ReplyText | None = extract_reply(plain, html)
        except ReplyError:
            result = None
    return result


@settings(max_examples=300, deadline=None)
@given(plain=st.one_of(st.none(), _ANY_TEXT, _DECODED_BYTES), html=st.none())
def test_any_plain_text(plain: str | None, html: None) -> None:
    reply = _extract_or_error(plain, html)
    assert reply is None or isinstance(reply, ReplyText)


@settings(max_examples=300, deadline=None)
@given(html=st.one_of(_ANY_TEXT, _DECODED_BYTES))
def test_any_html(html: str) -> None:
    _extract_or_error(None, html)


@settings(max_examples=300, deadline=None)
@given(plain=_ANY_TEXT)
def test_new_text_never_empty_when_input_has_text(plain: str) -> None:
    reply = extract_reply(plain, None)
    visible = "".join(ch for ch in plain if ch.isprintable() and not ch.isspace())
    if visible.strip("\x7f"):
        assert reply.new_text.strip()


_NEGATED = st.sampled_from(
    [
        "not approved",
        "do not approve",
        "I cannot approve",
        "can't approve",
        "disapprove",
        "unapproved",
        "nicht genehmigt",
        "non approuvé",
        "disallow",
        "no aprobado",
        "niet goedgekeurd",
        "never approved",
        "NOT APPROVED",
    ]
)
_SEPARATOR = st.sampled_from([" ", "\n", ". ", ", ", "\n\n", " - "])


@settings(max_examples=500, deadline=None)
@given(
    before=_ANY_TEXT,
    sep1=_SEPARATOR,
    negated=_NEGATED,
    sep2=_SEPARATOR,
    after=_ANY_TEXT,
    subject=st.one_of(st.none(), st.sampled_from(["APPROVE [HFA-1]", "Re: APPROVE [HFA-1]"])),
)
def test_negated_approval_never_approves(
    before: str, sep1: str, negated: str, sep2: str, after: str, subject: str | None
) -> None:
    for prefix in ("", "Approved", "Yes, "):
        text = f"{prefix}{before}{sep1}{negated}{sep2}{after}"
        assert read_decision(text, subject).kind is not DecisionKind.APPROVAL


@settings(max_examples=300, deadline=None)
@given(text=_ANY_TEXT, subject=st.one_of(st.none(), _ANY_TEXT))
def test_read_decision_total(text: str, subject: str | None) -> None:
    with contextlib.suppress(ReplyError):
        read_decision(text, subject)


@settings(max_examples=200, deadline=None)
@given(
    headers=st.dictionaries(
        st.sampled_from(
            ["auto-submitted", "precedence", "return-path", "list-id", "from", "x-autoreply"]
        ),
        _ANY_TEXT,
    ),
    subject=st.one_of(st.none(), _ANY_TEXT),
    content_type=st.one_of(st.none(), _ANY_TEXT),
)
def test_detect_automatic_total(
    headers: dict[str, str], subject: str | None, content_type: str | None
) -> None:
    with contextlib.suppress(ReplyError):
        detect_automatic(headers, subject, content_type)


@settings(max_examples=200, deadline=None)
@given(raw=st.one_of(st.binary(), _MAILISH.map(lambda s: s.encode("utf-8", "surrogatepass"))))
def test_find_bounced_message_ids_total(raw: bytes) -> None:
    try:
        result = find_bounced_message_ids(raw)
    except ReplyError:
        return
    assert all(item.startswith("<") and item.endswith(">") for item in result)
