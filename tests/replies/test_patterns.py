"""Quote headers as real clients write them: each family keeps only the answer.

Formats written from what Gmail, Thunderbird, Apple Mail, Outlook, Zoho,
K-9/FairEmail, Supercite-style readers and webmails in many locales produce.
"""

from __future__ import annotations

import pytest

from gateway.replies import extract_reply, read_decision

ADDR = "HFA Legal Review Gateway <review@hfa.example.com>"
QUOTE = "> Please review the attached supplier contract.\n> Reply APPROVE or REJECT.\n"
HISTORY = "Please review the attached supplier contract.\nReply APPROVE or REJECT.\n"

FAMILIES = [
    (
        "de_schrieb_am_wrapped_date",
        "Genehmigt.\n\nHFA Legal Review Gateway <review@hfa.example.com> schrieb am Fr., 28.\n"
        "Nov. 2026, 10:12:\n\n" + QUOTE,
    ),
    (
        "de_thunderbird_wrapped",
        "Genehmigt.\n\nAm 28.11.2026 um 10:12 schrieb HFA Legal Review Gateway for Smith &\n"
        "Partners <review@hfa.example.com>:\n" + QUOTE,
    ),
    (
        "de_gmail_address_closing_on_its_own_line",
        "Genehmigt.\n\nAm Fr., 28. Nov. 2026 um 10:12 Uhr schrieb HFA Legal Review Gateway <"
        "review@hfa.example.com\n>:\n\n" + QUOTE,
    ),
    (
        "en_address_closing_on_its_own_line",
        "Approved.\n\nOn Fri, Nov 28, 2026 at 10:12 AM HFA Legal Review Gateway <review@hfa.example.com\n"
        ">:\n" + QUOTE,
    ),
    (
        "fr_address_wrapped_before_a_ecrit",
        "Approuvé.\n\nLe mer. 26 nov. 2026 à 12:32, HFA Legal Review Gateway <review@hfa.example.com\n"
        "> a écrit :\n\n" + QUOTE,
    ),
    (
        "de_gmail_address_wrapped_after_bracket",
        "Genehmigt.\n\nAm Mo., 30. Nov. 2026 um 08:13 Uhr schrieb HFA Legal Review Gateway <\n"
        "review@hfa.example.com>:\n\n" + QUOTE,
    ),
    (
        "da_gmail_date_first_skrev",
        "Godkendt.\n\n28. november 2026 kl. 11.00 skrev HFA Gateway <review@hfa.example.com>:\n\n"
        + QUOTE,
    ),
    (
        "pt_br_outlook_header_block",
        "Aprovado.\n\nDe: review@hfa.example.com\nEnviada em: sexta-feira, 28 de novembro de 2026 "
        "10:12\nPara: counsel@firm.test\nAssunto: [HFA-00001] Revisão jurídica\n\n" + HISTORY,
    ),
    (
        "cs_dne_napsal_wrapped",
        "Schvaluji.\n\nDne pá 28. lis. 2026 10:12 HFA Legal Review Gateway <review@hfa.example.com>\n"
        "napsal(a):\n\n" + QUOTE,
    ),
    (
        "sv_skrev_address_wrapped",
        "Godkänt.\n\nDen fre 28 nov. 2026 10:12 skrev HFA Legal Review Gateway <\n"
        "review@hfa.example.com>:\n\n" + QUOTE,
    ),
    (
        "zh_full_width_rule_signature_and_unquoted_history",
        "同意。\n\n——————————————\n\n王律师\n合伙人\n\n"
        "HFA Gateway <review@hfa.example.com> 在 2026年11月28日 周五 10:12 写道：\n\n" + HISTORY,
    ),
    (
        "fi_kirjoitti",
        "Hyväksytty.\n\npe 28.11.2026 klo 10.12 HFA Gateway (review@hfa.example.com) kirjoitti:\n\n"
        + QUOTE,
    ),
    ("en_name_address_wrote_no_date", f"Approved.\n\n{ADDR} wrote:\n\n{QUOTE}"),
    ("en_address_wrote_no_date", f"Approved.\n\nreview@hfa.example.com wrote:\n{QUOTE}"),
    ("de_name_address_schrieb_no_date", f"Genehmigt.\n\n{ADDR} schrieb:\n\n{QUOTE}"),
    ("fr_name_address_a_ecrit_no_date", f"Approuvé.\n\n{ADDR} a écrit :\n\n{QUOTE}"),
    (
        "zoho_dashed_on_wrote",
        "Approved.\n\n---- On Fri, 28 Nov 2026 10:12:00 +0000 HFA Legal Review Gateway "
        "<review@hfa.example.com> wrote ----\n\n" + HISTORY,
    ),
    (
        "zoho_dashed_de",
        "Genehmigt.\n\n---- Am Fr, 28 Nov 2026 10:12:00 +0000 schrieb HFA Legal Review Gateway "
        "<review@hfa.example.com> ----\n\n" + HISTORY,
    ),
    (
        "gmail_date_and_name_without_colon",
        "Approved.\n\nOn Fri, Nov 28, 2026 at 10:12 AM HFA Legal Review Gateway "
        "<review@hfa.example.com> wrote\n\n" + QUOTE,
    ),
    (
        "gmail_bare_date_and_name_without_colon",
        "Approved.\n\nFri, Nov 28, 2026, 10:12 HFA Legal Review Gateway <review@hfa.example.com>\n"
        + QUOTE,
    ),
    ("uk_pyshe", f"Погоджено.\n\nпт, 28 лист. 2026 р. о 10:12 {ADDR} пише:\n\n{QUOTE}"),
    ("sr_pise", f"Approved.\n\n28. nov 2026. u 10:12 {ADDR} пише:\n{QUOTE}"),
    (
        "sv_skrev_with_mailto",
        "Godkänt.\n\nDen fre 28 nov. 2026 kl. 10:12 skrev HFA Legal Review Gateway "
        "<review@hfa.example.com<mailto:review@hfa.example.com>>:\n\n" + QUOTE,
    ),
    (
        "da_skrev_with_mailto",
        "Godkendt.\n\nDen 28. nov. 2026 kl. 10.12 skrev HFA Legal Review Gateway "
        "<review@hfa.example.com<mailto:review@hfa.example.com>>:\n" + QUOTE,
    ),
    (
        "supercite_initials_prefix",
        "Approved.\n\nC> Please review the attached supplier contract.\nC> Reply APPROVE or REJECT.\n",
    ),
    (
        "bare_date_name_address_over_unquoted_history",
        "Approved.\n\n28.11.2026, 10:12, HFA Legal Review Gateway <review@hfa.example.com>:\n"
        + HISTORY,
    ),
    (
        "bare_weekday_date_name_address_over_unquoted_history",
        "Approved.\n\nFri, 28 Nov 2026 10:12:00 +0000, HFA Legal Review Gateway "
        "<review@hfa.example.com>:\n" + HISTORY,
    ),
    (
        "tracking_character_before_signature_delimiter",
        "Approved.\n\u200c\n-- \nJane Smith\nSmith & Partners\n",
    ),
    (
        "tracking_character_on_the_delimiter_line",
        "Approved.\n\n\u200b-- \nJane Smith\nSmith & Partners\n",
    ),
]


@pytest.mark.parametrize(("name", "body"), FAMILIES, ids=[name for name, _ in FAMILIES])
def test_quote_header_family_is_set_aside(name: str, body: str) -> None:
    reply = extract_reply(body, None)
    first = body.split("\n", 1)[0]
    assert reply.new_text == first, reply
    assert reply.confident
    decision = read_decision(reply.new_text, None)
    assert decision.kind is not None or decision.answer is not None


def test_a_reply_opening_with_a_quote_keeps_it_as_context() -> None:
    body = (
        "> Book a notary appointment for Thursday?\n\n"
        "No - Thursday is too early, make it Monday.\n\n"
        "On Fri, Nov 28, 2026 at 10:12 AM HFA <review@hfa.example.com> wrote:\n" + QUOTE
    )
    reply = extract_reply(body, None)
    assert reply.new_text == (
        "> Book a notary appointment for Thursday?\n\nNo - Thursday is too early, make it Monday."
    )
    # The quoted question is context only: the answer's own words decide.
    decision = read_decision(reply.new_text, None)
    assert decision.kind is not None or decision.answer is not None
    assert "Reply APPROVE" in reply.elided


def test_inline_answers_keep_the_lines_they_answer() -> None:
    body = (
        "On Fri, Nov 28, 2026 at 10:12 AM HFA <review@hfa.example.com> wrote:\n"
        "> 1. Is the governing law clause acceptable?\nYes, German law is fine.\n"
        "> 2. Can we accept the 12-month term?\nNo, make it 24 months.\n"
    )
    assert extract_reply(body, None).new_text == (
        "> 1. Is the governing law clause acceptable?\nYes, German law is fine.\n"
        "> 2. Can we accept the 12-month term?\nNo, make it 24 months."
    )


def test_a_bottom_posted_answer_under_a_whole_quote_keeps_only_the_answer() -> None:
    body = f"On Fri, Nov 28, 2026 at 10:12 AM HFA <review@hfa.example.com> wrote:\n{QUOTE}\nApproved.\n"
    assert extract_reply(body, None).new_text == "Approved."


@pytest.mark.parametrize(
    "body",
    [
        "As Jane <jane@firm.test> wrote, the cap is fine.\nApproved.",
        "Approved. Jane <jane@firm.test> wrote the annex.",
        "The supplier wrote -- as usual -- too late.\nApproved.",
        "A> B is how the formula reads.\nApproved.",
    ],
)
def test_sentences_that_look_like_headers_are_content(body: str) -> None:
    assert extract_reply(body, None).new_text == body
