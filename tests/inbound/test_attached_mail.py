"""An attached email is a file the lawyer sent, never the lawyer's own words (``mailparse``).

mail-parser reads the text parts inside a ``message/rfc822`` part as text of the
message itself; the reader then saw the forwarded "Rejected." under the lawyer's
"Approved." as theirs. Each case here is parsed and read as the worker does.
"""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from gateway.inbound.mailparse import parse
from gateway.replies import Ask, extract_reply, read_reply, read_text

ASK = Ask("May we sign the ACME NDA?", "Sign the ACME NDA.", "HFA-00001")


def forwarded(text: str, depth: int = 1) -> EmailMessage:
    """An email as a client attaches it, holding ``depth - 1`` more attached emails."""
    inner = EmailMessage()
    inner["From"] = "someone@elsewhere.example"
    inner["Subject"] = f"level {depth}"
    inner.set_content(text)
    for level in range(depth - 1, 0, -1):
        outer = EmailMessage()
        outer["From"] = "someone@elsewhere.example"
        outer["Subject"] = f"level {level}"
        outer.set_content(f"level {level}")
        outer.add_attachment(inner)
        inner = outer
    return inner


def reply_with(own: str, attached: EmailMessage, disposition: str | None) -> bytes:
    msg = EmailMessage()
    msg["From"] = "counsel@lawfirm.example"
    msg["Subject"] = "Re: May we sign the ACME NDA? [HFA-00001]"
    msg.set_content(own)
    msg.add_attachment(attached)
    part = list(msg.iter_attachments())[-1]
    del part["Content-Disposition"]
    if disposition is not None:
        part["Content-Disposition"] = disposition
    return msg.as_bytes()


def decision_of(raw: bytes) -> str | None:
    mail = parse(raw)
    reply = extract_reply(mail.text_plain, mail.text_html)
    reading = read_reply(
        read_text(reply.new_text, mail.subject), ASK, has_attachments=bool(mail.attachments)
    )
    return reading.decision


DISPOSITIONS = [
    None,
    "inline",
    "attachment",
    'attachment; filename="rejected.eml"',
    'inline; filename="rejected.eml"',
]


@pytest.mark.parametrize("disposition", DISPOSITIONS)
@pytest.mark.parametrize("depth", [1, 2, 20])
def test_an_attached_email_is_never_the_lawyers_text(disposition: str | None, depth: int) -> None:
    raw = reply_with("Approved.", forwarded("Rejected.", depth), disposition)
    mail = parse(raw)
    assert mail.text_plain is not None and mail.text_plain.strip() == "Approved."
    assert "Rejected" not in (mail.text_html or "")
    # Kept, whole, as a file the lawyer sent.
    (attached,) = mail.attachments
    assert attached.content_type == "message/rfc822"
    assert b"Rejected." in attached.content or depth > 1
    assert attached.filename == (
        "rejected.eml" if "filename" in str(disposition) else "forwarded.eml"
    )
    assert decision_of(raw) == "approval"


@pytest.mark.parametrize("attached_text", ["Approved.", "APPROVE", "Yes, go ahead and sign it."])
def test_an_attached_approval_approves_nothing(attached_text: str) -> None:
    """The other direction: the lawyer's "FYI" with someone else's approval attached."""
    raw = reply_with("FYI, see the attached thread.", forwarded(attached_text), "attachment")
    assert decision_of(raw) is None


def test_a_message_global_part_is_an_attached_email_too() -> None:
    raw = reply_with("Rejected.", forwarded("Approved."), None).replace(
        b"message/rfc822", b"message/global"
    )
    mail = parse(raw)
    assert mail.text_plain is not None and mail.text_plain.strip() == "Rejected."
    assert decision_of(raw) == "rejection"


def test_a_message_without_an_attached_email_is_read_as_before() -> None:
    msg = EmailMessage()
    msg["From"] = "counsel@lawfirm.example"
    msg["Subject"] = "Re: x"
    msg.set_content("Approved.")
    msg.add_attachment(b"%PDF-1.4", maintype="application", subtype="pdf", filename="nda.pdf")
    mail = parse(msg.as_bytes())
    assert mail.text_plain is not None and mail.text_plain.strip() == "Approved."
    assert [a.filename for a in mail.attachments] == ["nda.pdf"]
