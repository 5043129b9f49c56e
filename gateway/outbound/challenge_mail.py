"""The sender challenge as the lawyer reads it: in their language, with a CONFIRM button.

When a reply to a request is held because its sender is not proven
(``gateway.inbound.challenge``), the lawyer the request was sent to is asked
whether they sent it. The email says, in the lawyer's language, which request it
is about (the ask and the proposed action, framed as the agent's words), what
the held reply says and reads as, and how to record it: one CONFIRM button (a
``mailto:`` like the quick replies, to the challenge's own signed address) or a
reply with the word CONFIRM. Why it was held is said in plain words; the
technical reason follows in small print, for whoever looks after the mailbox.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from typing import Any

from gateway import i18n
from gateway.i18n import _
from gateway.outbound import subjects, when
from gateway.outbound.compose import finish_notice, header_safe
from gateway.outbound.mime import display_address
from gateway.outbound.quickreply import mailto, quick_subject
from gateway.outbound.receipts import decision_label
from gateway.services import Services
from gateway.store.models import OutboxItem, Request

KIND = "sender_challenge"
CONFIRM = "CONFIRM"


def challenge_mail(
    services: Services, item: OutboxItem, confirm_to: str, request: Request | None
) -> EmailMessage:
    """The challenge ``item`` stands for, to the lawyer, answered at ``confirm_to``."""
    config = services.config
    lawyer = config.lawyer
    payload: dict[str, Any] = dict(item.payload)
    reference = str(payload.get("reference") or (request.reference if request else ""))
    fields = request.fields if request is not None else {}
    language = lawyer.languages.get(item.target.strip().lower()) or lawyer.language
    with i18n.speaking(language) as spoken:
        subject = subjects.subject(
            _("Did you send this reply? "), str(fields.get("request", "")), reference
        )
        confirm_subject = quick_subject(CONFIRM, reference)
        context = {
            **payload,
            "subject": subject,
            "reference": reference,
            "confirm_to": confirm_to,
            "confirm_url": mailto(confirm_to, confirm_subject, f"{CONFIRM}\n"),
            "ask": str(fields.get("request") or ""),
            "action": str(fields.get("proposed_action") or ""),
            # Named as the receipt will name it once the lawyer confirms the reply.
            "decision_word": decision_label(str(payload.get("decision") or "")),
            "received_at": when.local_iso(payload.get("received_at"), when.zone(lawyer.timezone)),
            "lang": spoken,
        }
        text, html = services.renderer.render(KIND, **context)
    msg = EmailMessage()
    msg["From"] = display_address(lawyer.from_name, config.mail_from)
    msg["To"] = item.target
    msg["Reply-To"] = formataddr((f"{reference} confirm", confirm_to))
    msg["Subject"] = header_safe(subject)
    msg["Date"] = format_datetime(item.created_at)
    msg["Message-ID"] = item.message_id
    msg["Auto-Submitted"] = "auto-generated"
    msg["X-Auto-Response-Suppress"] = "All"
    msg["X-HFA-Kind"] = KIND
    msg["X-HFA-Reference"] = reference
    finish_notice(msg, config.reply_domain, text, html, spoken)
    return msg
