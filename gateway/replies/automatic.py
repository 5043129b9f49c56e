"""Recognise messages that are not a human's answer: auto-replies and bounces.

Headers decide first (they are set by software, not typed by people); the
subject is a fallback for responders that set no header, and it only counts
when it STARTS with the responder's phrase, because our own subjects carry the
agent's title ("Legal review: out of office policy") after "Re: [HFA-...]".
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping

from gateway.errors import only_reply_errors
from gateway.replies.bounces import find_bounced_message_ids

__all__ = ["AutomaticKind", "detect_automatic", "find_bounced_message_ids", "is_own_loop"]


class AutomaticKind(enum.StrEnum):
    AUTO_REPLY = "auto_reply"
    BOUNCE = "bounce"


_MAX_FIELD = 2000
_REPORT_TYPE = re.compile(r"report-type\s*=\s*\"?delivery-status\b", re.IGNORECASE)
# Alike in shape to replies.cut's patterns (compiled alternations of words), not in
# meaning: the subjects of delivery failures, read only here.
_BOUNCE_SUBJECT = re.compile(
    r"^\s*(?:(?:fw|fwd|wg)\s?:\s*)?(?:"
    r"delivery\s+status\s+notification|undeliver(?:able|ed)|undelivered\s+mail"
    r"|mail\s+delivery\s+(?:failed|failure|system|subsystem)|delivery\s+(?:failure|failed)"
    r"|returned\s+mail|failure\s+notice|non[- ]?delivery|message\s+not\s+delivered"
    r"|unzustellbar|nicht\s+zustellbar|unzustellbare|non\s+remis|non\s+distribuable"
    r"|échec\s+de\s+(?:la\s+)?remise|no\s+se\s+puede\s+entregar|onbestelbaar"
    r"|kan\s+niet\s+worden\s+bezorgd|не\s+доставлено)",
    re.IGNORECASE,
)
_NULL_SENDERS = ("mailer-daemon", "postmaster")
_AUTO_REPLY_SUBJECT = re.compile(
    r"^\s*(?:\[[^\]]{0,40}\]\s*)?(?:"
    r"out\s+of\s+(?:the\s+)?office|automatic\s+reply|auto(?:matic)?[- ]?(?:reply|response)"
    r"|autoreply|autoresponse|abwesenheitsnotiz|abwesend|automatische\s+antwort"
    r"|abwesenheit|réponse\s+automatique|absence|absent|respuesta\s+automática"
    r"|fuera\s+de\s+(?:la\s+)?oficina|afwezig|automatisch\s+antwoord|risposta\s+automatica"
    r"|fuori\s+ufficio|resposta\s+automática|fora\s+do\s+escritório|automatiskt\s+svar"
    r"|frånvaro|autosvar|automatisk\s+svar|fraværende|odpowiedź\s+automatyczna"
    r"|автоответ|автоматический\s+ответ|自動応答|自动回复|自動回覆)\b",
    re.IGNORECASE,
)
_LIST_PRECEDENCE = frozenset({"bulk", "junk", "list", "auto_reply"})


def detect_automatic(
    headers: Mapping[str, str], subject: str | None, content_type: str | None
) -> AutomaticKind | None:
    """``headers`` maps lower-cased header names to their (first) value.

    Pass ``headers["return-path"]`` through unchanged: a null sender (``<>``)
    with a delivery-failure subject is a bounce.
    """
    with only_reply_errors("cannot classify message"):
        return _detect(headers, subject, content_type)


def _detect(
    headers: Mapping[str, str], subject: str | None, content_type: str | None
) -> AutomaticKind | None:
    subject_text = (subject or "")[:_MAX_FIELD]

    def header(name: str) -> str:
        value = headers.get(name)
        return value[:_MAX_FIELD].strip() if isinstance(value, str) else ""

    ctype = (content_type or "")[:_MAX_FIELD].lower()
    if ctype.startswith("multipart/report") and _REPORT_TYPE.search(ctype):
        return AutomaticKind.BOUNCE
    if header("x-failed-recipients"):
        return AutomaticKind.BOUNCE
    null_sender = header("return-path").replace(" ", "") in ("<>", "")
    from_daemon = header("from").lower().startswith(_NULL_SENDERS) or any(
        f"{name}@" in header("from").lower() for name in _NULL_SENDERS
    )
    if _BOUNCE_SUBJECT.match(subject_text) and (
        (null_sender and "return-path" in headers) or from_daemon
    ):
        return AutomaticKind.BOUNCE

    auto_submitted = header("auto-submitted").split(";", 1)[0].strip().lower()
    if auto_submitted and auto_submitted != "no":
        return AutomaticKind.AUTO_REPLY
    if header("x-autoreply") or header("x-autorespond") or header("x-autoresponder"):
        return AutomaticKind.AUTO_REPLY
    if header("precedence").lower() in _LIST_PRECEDENCE:
        return AutomaticKind.AUTO_REPLY
    if header("list-id") or header("x-auto-response-suppress"):
        return AutomaticKind.AUTO_REPLY
    if _AUTO_REPLY_SUBJECT.match(subject_text):
        return AutomaticKind.AUTO_REPLY
    return None


def is_own_loop(
    headers: Mapping[str, str], own_domain: str, loop_header: str = "x-hfa-loop"
) -> bool:
    """The message carries our own loop stamp: we sent it, it came back.

    The gateway stamps outbound mail with ``loop_header: <own_domain>``; a
    message arriving with that stamp (an auto-forward, a misconfigured alias)
    must never be read as the lawyer's answer.
    """
    value = headers.get(loop_header.lower())
    if not isinstance(value, str) or not own_domain.strip():
        return False
    return own_domain.strip().lower() in value[:_MAX_FIELD].lower()
