"""What a lawyer's email says, worked out from the request before any template runs.

The templates only lay out what is built here: the summary block (the ask,
who asks, for whom, urgency, deadline), the quick-reply links, the subject
of each kind of email and the receipt's restatement of what was recorded.
Times are shown in the ``HFA_DISPLAY_TIMEZONE`` zone, relative to the moment
the email was queued, so every retry of one email is the same email.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from zoneinfo import ZoneInfo

from gateway import contract
from gateway.outbound import quickreply, subjects, when
from gateway.outbound.changes import notice_view
from gateway.outbound.receipts import receipt_view
from gateway.store.models import OutboxItem, Recipient, Request, Turn

# Purposes that expect the lawyer's answer, and so carry the quick-reply links.
ANSWERABLE = frozenset({"request", "follow_up", "reminder", "escalation"})
_ASK_CHARS = 160
# Extra properties an agent may send that say whom the request is for.
_FOR_KEYS = ("on_behalf_of", "principal", "client", "client_name", "matter", "matter_number")


@dataclass(frozen=True)
class MailSettings:
    """Settings that shape every lawyer email (HFA_MAIL_FROM_NAME, HFA_DISPLAY_TIMEZONE)."""

    from_name: str = "Human for AI"
    zone: str = "UTC"


def redact_url(value: str) -> str:
    """A webhook URL without its query string or fragment, which may hold a secret."""
    text = value.strip()
    if not text.lower().startswith(("http://", "https://")):
        return text
    try:
        parts = urlsplit(text)
    except ValueError:
        return text.split("?", 1)[0]
    tail = "?…" if parts.query or parts.fragment else ""
    netloc = parts.netloc.rpartition("@")[2]  # user:password@ is a secret too
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")) + tail


def size_of(text: str) -> str:
    words = len(text.split())
    return f"{words:,} word{'s' if words != 1 else ''}, {len(text):,} characters"


def short_ask(text: str) -> tuple[str, bool]:
    """The ask in one or two lines for the summary, and whether it was cut."""
    flat = " ".join(str(text).split())
    if len(flat) <= _ASK_CHARS and "\n" not in str(text).strip():
        return flat, False
    return subjects.shorten(flat, _ASK_CHARS), True


def _claims(fields: dict[str, Any], deadline_parsed: bool) -> list[tuple[str, str]]:
    """What the agent says about itself, whom it acts for, and a deadline in words."""
    out = [("Agent", str(fields.get("agent_name") or "(no name given)"))]
    if fields.get("model"):
        out.append(("Model", str(fields["model"])))
    out.append(("Operator", str(fields.get("operator") or "(not given)")))
    for key in _FOR_KEYS:
        if fields.get(key):
            out.append((f"For ({key.replace('_', ' ')})", str(fields[key])))
    if fields.get("deadline") and not deadline_parsed:
        out.append(("Deadline, in its words", str(fields["deadline"])))
    return out


_URGENCY_TEXT = {
    "blocking": "BLOCKING: the agent has stopped and waits for you",
    "soon": "soon: an answer is needed within days",
    "routine": "routine",
}


def summary(request: Request, now: datetime, tz: ZoneInfo) -> dict[str, Any]:
    fields = request.fields
    ask, cut = short_ask(str(fields.get("request", "")))
    deadline = request.deadline_at
    passed = deadline is not None and when.left(deadline, now).startswith("passed")
    return {
        "ask": ask,
        "ask_cut": cut,
        "claims": _claims(fields, deadline is not None),
        "api_key": request.api_key_name,
        "category": request.category,
        "urgency": request.urgency,
        "urgency_text": _URGENCY_TEXT.get(request.urgency, request.urgency),
        "deadline": when.local(deadline, tz) if deadline else None,
        "deadline_left": when.left(deadline, now) if deadline else "",
        "deadline_ago": (
            when.left(deadline, now).removeprefix("passed ") if deadline and passed else ""
        ),
        "deadline_passed": passed,
        "deadline_words": bool(fields.get("deadline")) and deadline is None,
        "reply_to": redact_url(request.reply_to) if request.reply_to else None,
        "received": when.local(request.received_at, tz),
    }


def _tags(request: Request, now: datetime, tz: ZoneInfo) -> subjects.Tags:
    urgent = "BLOCKING" if request.urgency == "blocking" else ""
    due = when.due_tag(request.deadline_at, now, tz) if request.deadline_at else ""
    return subjects.Tags(urgent, due)


def subject_of(
    item: OutboxItem, request: Request, now: datetime, tz: ZoneInfo, payload: dict[str, Any]
) -> str:
    """The subject of one lawyer email: what kind of email it is, then the ask."""
    ask = str(request.fields.get("request", ""))
    ref = request.reference
    purpose = item.purpose
    if purpose == "request":
        return subjects.subject("", ask, ref, _tags(request, now, tz))
    if purpose == "reminder":
        overdue = request.deadline_at is not None and request.deadline_at <= now
        number = payload.get("reminder_number", "")
        prefix = f"Reminder {number} (overdue): " if overdue else f"Reminder {number}: "
        return subjects.subject(prefix, ask, ref)
    if purpose == "escalation":
        tags = subjects.Tags("BLOCKING" if request.urgency == "blocking" else "")
        return subjects.subject("Escalated to you: ", ask, ref, tags)
    if purpose == "receipt":
        return subjects.subject(f"Recorded: {payload.get('recorded_as', 'your reply')}: ", ask, ref)
    prefixes = {
        "follow_up": "Follow-up from the agent: ",
        "withdrawal": "Withdrawn - no answer needed: ",
        "closed": "Request closed - no answer needed: ",
        "deadline_passed": "Deadline passed: ",
        "escalated_notice": "Also sent to escalation: ",
        "answered_by_other": "Answered by another lawyer: ",
        "approver_away": "An approver is away: ",
    }
    return subjects.subject(prefixes.get(purpose, ""), ask, ref)


def quick_links(request: Request, reply_address: str) -> list[quickreply.QuickLink]:
    return quickreply.links_for(reply_address, request.reference)


def lawyer_context(
    item: OutboxItem,
    request: Request,
    recipient: Recipient,
    turns: list[Turn],
    *,
    reply_address: str,
    tz: ZoneInfo,
) -> dict[str, Any]:
    """Everything the template of ``item.purpose`` needs."""
    now = item.created_at
    payload = dict(item.payload)
    fields = request.fields
    known = set(_contract_fields() + _FOR_KEYS)
    extra = sorted((k, str(v)) for k, v in fields.items() if k not in known)
    s = summary(request, now, tz)
    receipt = receipt_view(request, turns, payload, tz) if item.purpose == "receipt" else None
    if receipt is not None:
        payload["recorded_as"] = receipt["recorded_as"]
    subject = subject_of(item, request, now, tz, payload)
    answerable = item.purpose in ANSWERABLE and request.status != "closed"
    links = quick_links(request, reply_address) if answerable else []
    context: dict[str, Any] = {
        "subject": subject,
        "reference": request.reference,
        "category": request.category,
        "urgency": request.urgency,
        "fields": {k: fields.get(k) for k in _contract_fields()},
        "extra": extra,
        "s": s,
        "links": links,
        "context_size": size_of(str(fields.get("context") or "")),
        "sent_local": when.local(now, tz),
        "withdrawn": item.purpose == "withdrawal",
        **payload,
    }
    if receipt is not None:
        context["r"] = receipt
        context.setdefault("status", request.status)
        context.setdefault("kind_label", receipt["kind"])
        if receipt["unsettled"] and request.status != "closed":
            context["links"] = quick_links(request, reply_address)
    escalated = [str(a) for t in turns if t.kind == "escalated" for a in t.data.get("to") or []]
    context.setdefault("overdue", s["deadline_passed"])
    context.setdefault("escalated_to", ", ".join(escalated))
    context.setdefault("last_reminder", False)
    context["n"] = notice_view(item.purpose, request, payload, tz)
    context["preheader"] = preheader(item.purpose, s, request)
    return context


def preheader(purpose: str, s: dict[str, Any], request: Request) -> str:
    """The inbox preview line: the ask and the deadline, never boilerplate."""
    ask = subjects.gist(str(request.fields.get("request", "")))
    due = f"Due {s['deadline']} ({s['deadline_left']})." if s["deadline"] else "No deadline given."
    lead = {
        "request": "Your answer is asked:",
        "reminder": "Still waiting for your answer:",
        "escalation": "Escalated to you:",
        "follow_up": "The agent added to:",
        "withdrawal": "Withdrawn, no answer needed:",
        "closed": "Closed, no answer needed:",
        "receipt": "Recorded:",
    }.get(purpose, "News on:")
    return f"{lead} “{subjects.shorten(ask, 90)}” {due}"


def _contract_fields() -> tuple[str, ...]:
    return contract.request_fields()
