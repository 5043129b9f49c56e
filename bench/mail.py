"""What the load is made of: a realistic submit body and realistic lawyer replies.

A reply is what mail clients send: multipart/alternative (plain and HTML),
a top-posted answer, a signature, and the quoted original with its "On ...
wrote:" header, about 8 KB in all.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from html import escape

from bench.procs import LAWYER, REPLY_DOMAIN

SUBMIT_BODY = {
    "category": "legal_review",
    "request": (
        "May I accept the supplier's revised limitation of liability clause (7.2) as drafted? "
        "It caps their liability at the fees paid in the last twelve months and excludes "
        "indirect loss, including loss of data."
    ),
    "context": (
        "The agreement covers hosting of customer records for the EU subsidiary. The previous "
        "version capped liability at twice the annual fees and carved out data protection "
        "breaches. The supplier's counsel says the change is standard for their new template. "
        "Signature is requested by Friday."
    ),
    "proposed_action": "Accept clause 7.2 as drafted and sign the agreement via DocuSign.",
    "urgency": "blocking",
    "deadline": "2026-12-04",
    "agent_name": "procurement-bot",
    "model": "example-model-1",
    "operator": "Example Corp procurement",
}

ANSWER = (
    "Approved, subject to:\n"
    "- the carve-out for data protection breaches stays as in the previous version;\n"
    "- the cap is at least the fees paid in the last twelve months or EUR 250,000, "
    "whichever is higher.\n\n"
    "If the supplier refuses either point, do not sign and send it back to me."
)
SIGNATURE = (
    "Dana Counsel\nSenior Associate, Commercial Contracts\nLawfirm LLP, 1 Example Square\n"
    "+44 20 0000 0000\n\nThis email is confidential and may be legally privileged. If you are "
    "not the intended recipient, please tell the sender and delete it."
)


def submit_json() -> str:
    return json.dumps(SUBMIT_BODY)


def original_text(reference: str) -> str:
    """The gateway's email as the reply quotes it (about 3 KB, like the real one)."""
    lines = [
        f"Request {reference} from procurement-bot (Example Corp procurement)",
        "",
        "Category: legal_review     Urgency: blocking     Deadline: 2026-12-04",
        "",
        "REQUEST",
        SUBMIT_BODY["request"],
        "",
        "CONTEXT",
        SUBMIT_BODY["context"],
        "",
        "PROPOSED ACTION",
        SUBMIT_BODY["proposed_action"],
        "",
        "HOW TO ANSWER",
        "Reply to this email in your own words. Start with Approve, Reject, Decline or",
        "Question if you want your answer recorded as that decision; anything else is",
        "recorded as a reply. Everything you write is added to the request's thread.",
        "",
    ]
    lines += [
        f"Clause 7.{n}: the parties agree that the provisions of this clause survive "
        "termination of the agreement for any reason whatsoever."
        for n in range(1, 16)
    ]
    return "\n".join(lines)


def reply(reply_address: str, reference: str, *, sender: str = LAWYER) -> bytes:
    """A lawyer's reply (about 8 KB, multipart, quoted original) to ``reply_address``."""
    original = original_text(reference)
    quoted = "\n".join("> " + line if line else ">" for line in original.splitlines())
    header = f"On Mon, 30 Nov 2026 at 09:12, HFA Gateway <gateway@{REPLY_DOMAIN}> wrote:"
    msg = EmailMessage()
    msg["From"] = f"Dana Counsel <{sender}>"
    msg["To"] = reply_address
    msg["Subject"] = f"Re: [{reference}] Legal review requested: supplier agreement clause 7.2"
    msg["Date"] = format_datetime(datetime.now(UTC))
    msg["Message-ID"] = f"<{uuid.uuid4().hex}@lawfirm.example>"
    msg["In-Reply-To"] = f"<hfa.{reference.lower()}@{REPLY_DOMAIN}>"
    msg["References"] = msg["In-Reply-To"]
    msg.set_content(f"{ANSWER}\n\n-- \n{SIGNATURE}\n\n{header}\n\n{quoted}\n")
    html_quote = escape(original).replace("\n", "<br>\n")
    msg.add_alternative(
        '<html><body><div dir="ltr">'
        + escape(ANSWER).replace("\n", "<br>\n")
        + "<br>-- <br>"
        + escape(SIGNATURE).replace("\n", "<br>\n")
        + f'</div><div class="gmail_quote"><div class="gmail_attr">{escape(header)}</div>'
        + '<blockquote class="gmail_quote" style="margin:0 0 0 .8ex;border-left:1px #ccc solid;'
        + f'padding-left:1ex">{html_quote}</blockquote></div></body></html>',
        subtype="html",
    )
    return msg.as_bytes()


def large_reply(reply_address: str, size: int) -> bytes:
    """A reply carrying an attachment, ``size`` bytes on the wire (under the listener's cap)."""
    msg = EmailMessage()
    msg["From"] = f"Dana Counsel <{LAWYER}>"
    msg["To"] = reply_address
    msg["Subject"] = "Re: the signed agreement, scanned"
    msg["Date"] = format_datetime(datetime.now(UTC))
    msg["Message-ID"] = f"<{uuid.uuid4().hex}@lawfirm.example>"
    msg.set_content("Approved. The signed scan is attached.\n\nDana\n")
    # Base64 grows the attachment by 4/3 plus line ends.
    raw_size = int(size * 0.74)
    msg.add_attachment(
        (b"%PDF-1.7 scanned page " * (raw_size // 22 + 1))[:raw_size],
        maintype="application",
        subtype="pdf",
        filename="agreement-signed.pdf",
    )
    return msg.as_bytes()


def new_id() -> str:
    return uuid.uuid4().hex
