"""An HTML reply as text: the history a mail client marks is set aside."""

from __future__ import annotations

from gateway.replies import extract_reply


def test_html_history_goes_to_elided() -> None:
    reply = extract_reply(
        None, '<div>Approved.</div><div class="gmail_quote">On x wrote:<blockquote>Hi</blockquote>'
    )
    assert reply.new_text == "Approved."
    assert "Hi" in reply.elided
