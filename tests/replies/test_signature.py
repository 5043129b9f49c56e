"""Where the lawyer's own text ends: a sign-off and a mobile footer go, a sign-off block with a list stays."""

from __future__ import annotations

from gateway.replies import extract_reply


def test_signature_and_footer_go_to_elided() -> None:
    reply = extract_reply("Rejected.\n\nBest regards,\nJane Doe\n\nSent from my iPhone", None)
    assert reply.new_text == "Rejected."
    assert "Jane Doe" in reply.elided
    assert "Sent from my iPhone" in reply.elided


def test_long_signoff_block_with_list_is_content() -> None:
    text = "Approved.\n\nRegards,\n- item one\n- item two"
    assert extract_reply(text, None).new_text == text


def test_mobile_footer_followed_by_much_text_is_kept_in_place() -> None:
    body = "\n".join(f"Point {n} of my answer." for n in range(6))
    text = f"Intro.\nSent from my phone booth\n{body}"
    assert extract_reply(text, None).new_text == text
