"""What a lawyer's email says, worked out from the request before any template runs.

The templates only lay out what is built here: the summary block (the ask,
who asks, for whom, urgency, deadline), the quick-reply links, the subject
of each kind of email and the receipt's restatement of what was recorded.
Times are shown in the ``HFA_DISPLAY_TIMEZONE`` zone, relative to the moment
the email was queued, so every retry of one email is the same email.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from zoneinfo import ZoneInfo

from babel.numbers import format_decimal

from gateway import contract, i18n, options
from gateway.i18n import _, ngettext
from gateway.outbound import quickreply, subjects, when
from gateway.outbound.change_notices import notice_view
from gateway.outbound.documents import documents
from gateway.outbound.group import GroupState, group_view, outcome_word
from gateway.outbound.receipts import receipt_view
from gateway.store.models import OutboxItem, Recipient, Request, Turn

# Purposes that expect the lawyer's answer, and so carry the quick-reply links.
ANSWERABLE = frozenset({"request", "follow_up", "reminder", "escalation"})
# The ask is shown whole on a phone's first screen up to this length, then "continues below".
_ASK_CHARS = 700
_NEW_MESSAGE_CHARS = 300
# Named extra properties of request_human_assistance: for whom the request is asked.
PARTY_FIELDS = contract.PARTY_FIELDS
# Other extra properties an agent may send that say whom the request is for.
_FOR_KEYS = ("on_behalf_of", "principal", "client_name", "matter_number")


@dataclass(frozen=True)
class MailSettings:
    """Settings that shape every lawyer email.

    HFA_MAIL_FROM_NAME, HFA_DISPLAY_TIMEZONE, HFA_LANGUAGE and HFA_LAWYER_LANGUAGES.
    """

    from_name: str = "Human for AI"
    zone: str = "UTC"
    language: str = i18n.DEFAULT_LANGUAGE
    # A lawyer's address (lower case) -> the language their emails are written in.
    languages: Mapping[str, str] = field(default_factory=dict)

    def language_for(self, address: str, turns: list[Turn]) -> str:
        """The lawyer's set language, else that of their last reply, else the default."""
        address = address.strip().lower()
        chosen = i18n.supported(self.languages.get(address))
        if chosen:
            return chosen
        for turn in reversed(turns):
            sender = str(turn.data.get("from") or "").strip().lower()
            if turn.author == "human" and sender == address:
                read = i18n.supported(turn.data.get("language"))
                if read:
                    return read
        return i18n.supported(self.language) or i18n.DEFAULT_LANGUAGE


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


def _count(number: int) -> str:
    if 0 <= number < 1000:
        # No group separator below a thousand, and Latin digits in every language here:
        # Babel's formatting, the dearest part of a word count, would write the same.
        return str(number)
    return format_decimal(number, locale=i18n.locale())


def size_of(text: str) -> str:
    words = len(text.split())
    return _("%(words)s, %(chars)s") % {
        "words": ngettext("%(n)s word", "%(n)s words", words) % {"n": _count(words)},
        "chars": ngettext("%(n)s character", "%(n)s characters", len(text))
        % {"n": _count(len(text))},
    }


def context_note(fields: dict[str, Any]) -> str:
    """The line above the buttons that says there is context to read, and how much."""
    context = str(fields.get("context") or "")
    files = fields.get("attachments")
    count = len(files) if isinstance(files, list) else 0
    if not context.strip() and not count:
        return ""
    parts = []
    if context.strip():
        words = len(context.split())
        parts.append(ngettext("%(n)s word", "%(n)s words", words) % {"n": _count(words)})
    if count:
        parts.append(ngettext("%(n)s attachment", "%(n)s attachments", count) % {"n": count})
    return _("Read the context below before answering: %(size)s") % {"size": ", ".join(parts)}


def short_ask(text: str, limit: int = _ASK_CHARS) -> tuple[str, bool]:
    """The ask whole, its line breaks kept, up to a phone screen's worth; whether it was cut."""
    whole = "\n".join(line.rstrip() for line in str(text).strip().splitlines())
    whole = re.sub(r"\n{3,}", "\n\n", whole)
    if len(whole) <= limit:
        return whole, False
    cut = whole[:limit]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    return (cut[:space] if space > limit // 2 else cut).rstrip() + "\u2026", True


def _party_value(value: object) -> str:
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value).strip()
    return json.dumps(value, ensure_ascii=False, sort_keys=True) if value else ""


def party(fields: dict[str, Any], key_party: dict[str, str]) -> list[dict[str, Any]]:
    """ "For: <client> · Matter: <matter>": set by the API key, or the agent's claim."""
    labels = {"client": _("For"), "matter": _("Matter")}
    out: list[dict[str, Any]] = []
    for name in PARTY_FIELDS:
        by_key = (key_party.get(name) or "").strip()
        claim = _party_value(fields.get(name))
        if by_key:
            other = claim if claim and claim != by_key else ""
            out.append({"label": labels[name], "value": by_key, "by_key": True, "claim": other})
        elif claim:
            out.append({"label": labels[name], "value": claim, "by_key": False, "claim": ""})
    return out


def _claims(fields: dict[str, Any], deadline_parsed: bool) -> list[tuple[str, str]]:
    """What the agent says about itself, whom it acts for, and a deadline in words."""
    out = [(_("Agent"), str(fields.get("agent_name") or _("(no name given)")))]
    if fields.get("model"):
        out.append((_("Model"), str(fields["model"])))
    out.append((_("Operator"), str(fields.get("operator") or _("(not given)"))))
    for key in _FOR_KEYS:
        if fields.get(key):
            out.append((_("For (%(what)s)") % {"what": key.replace("_", " ")}, str(fields[key])))
    if fields.get("deadline") and not deadline_parsed:
        out.append((_("Deadline, in its words"), str(fields["deadline"])))
    return out


def _urgency_text(urgency: str) -> str:
    return {
        "blocking": _("BLOCKING: the agent has stopped and waits for you"),
        "soon": _("soon: an answer is needed within days"),
        "routine": _("routine"),
    }.get(urgency, urgency)


def summary(
    request: Request, now: datetime, tz: ZoneInfo, key_party: dict[str, str] | None = None
) -> dict[str, Any]:
    fields = request.fields
    ask, cut = short_ask(str(fields.get("request", "")))
    at = request.deadline_at
    due = when.deadline(fields.get("deadline"), at, now, tz) if at else None
    return {
        "ask": ask,
        "ask_cut": cut,
        "ask_long": len(ask) > 200,
        "claims": _claims(fields, at is not None),
        "party": party(fields, key_party or {}),
        "api_key": request.api_key_name,
        "category": request.category,
        "urgency": request.urgency,
        "urgency_text": _urgency_text(request.urgency),
        "deadline": due.shown if due else None,
        "deadline_left": due.left if due else "",
        "deadline_passed": bool(due and due.passed),
        "deadline_words": bool(fields.get("deadline")) and at is None,
        "reply_to": redact_url(request.reply_to) if request.reply_to else None,
        "received": when.local(request.received_at, tz),
        "context_note": context_note(fields),
    }


def _tags(request: Request, now: datetime, tz: ZoneInfo, *, left: bool = False) -> subjects.Tags:
    urgent = _("BLOCKING") if request.urgency == "blocking" else ""
    at = request.deadline_at
    if at is None:
        return subjects.Tags(urgent)
    due = when.deadline(request.fields.get("deadline"), at, now, tz)
    if left and not due.passed:
        # A reminder says how much time is left, not only the day.
        return subjects.Tags(urgent, _("due %(left)s") % {"left": due.left})
    return subjects.Tags(urgent, due.tag)


def subject_of(
    item: OutboxItem, request: Request, now: datetime, tz: ZoneInfo, payload: dict[str, Any]
) -> str:
    """The subject of one lawyer email: what kind of email it is, then the ask."""
    ask = str(request.fields.get("request", ""))
    ref = request.reference
    purpose = item.purpose
    tags = _tags(request, now, tz)
    if purpose == "request":
        return subjects.subject("", ask, ref, tags)
    if purpose == "reminder":
        number = {"number": payload.get("reminder_number", "")}
        overdue = request.deadline_at is not None and request.deadline_at <= now
        prefix = _("Reminder %(number)s (overdue): ") if overdue else _("Reminder %(number)s: ")
        tags = _tags(request, now, tz, left=True)
        return subjects.subject(
            prefix % number, ask, ref, tags, short=_("Reminder %(number)s: ") % number
        )
    if purpose == "escalation":
        return subjects.subject(_("Escalated to you: "), ask, ref, tags, short=_("Escalated: "))
    if purpose == "follow_up":
        return subjects.subject(
            _("Follow-up from the agent: "), ask, ref, tags, short=_("Follow-up: ")
        )
    if purpose == "receipt":
        recorded = payload.get("recorded_as") or _("your reply")
        label = payload.get("recorded_label")
        forms = [_("Recorded: %(what)s: ") % {"what": label}, f"{label}: "] if label else []
        return subjects.subject(
            _("Recorded: %(what)s: ") % {"what": recorded},
            ask,
            ref,
            short=[*forms, _("Recorded: ")],
        )
    outcome = payload.get("outcome")
    if purpose == "answered_by_other" and isinstance(outcome, dict) and outcome.get("outcome"):
        said = {"outcome": outcome_word(str(outcome["outcome"]))}
        prefix = _("Decided: %(outcome)s: ") % said
        return subjects.subject(prefix, ask, ref, short=f"{said['outcome']}: ")
    prefixes = {
        "withdrawal": (_("Withdrawn, no answer needed: "), _("Withdrawn: ")),
        "closed": (_("Closed, no answer needed: "), _("Closed: ")),
        "deadline_passed": (_("Deadline passed: "), ""),
        "escalated_notice": (_("Also sent to escalation: "), ""),
        "answered_by_other": (_("Answered by another lawyer: "), _("Answered: ")),
        "approver_away": (_("An approver is away: "), _("Approver away: ")),
        "reassigned": (_("Reassigned, no answer needed: "), _("Reassigned: ")),
        "late_objection": (_("Objection after the outcome: "), _("Objection: ")),
        "delegation": (_("Handed on: "), ""),
    }
    prefix, short = prefixes.get(purpose, ("", ""))
    return subjects.subject(prefix, ask, ref, short=short)


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
    key_party: dict[str, str] | None = None,
    group: GroupState | None = None,
) -> dict[str, Any]:
    """Everything the template of ``item.purpose`` needs."""
    now = item.created_at
    payload = dict(item.payload)
    fields = request.fields
    files = documents(fields)
    extra = _extra(fields, files)
    s = summary(request, now, tz, key_party)
    receipt = (
        receipt_view(request, turns, payload, tz, group) if item.purpose == "receipt" else None
    )
    if receipt is not None:
        payload["recorded_as"] = receipt["recorded_as"]
        payload["recorded_label"] = receipt["label"]
    subject = subject_of(item, request, now, tz, payload)
    held = receipt is not None and bool(receipt["reading"] and receipt["reading"]["pending"])
    g, settled, voted = _group_of(item, request, recipient, group, tz, held, reply_address)
    answerable = item.purpose in ANSWERABLE and request.status != "closed" and not settled
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
        "documents": files,
        "g": g,
        # A follow-up asks for an answer only of a lawyer whose answer is still awaited.
        "still_needed": not settled and not voted,
        **payload,
    }
    if "message" in payload:
        # A follow-up opens with its new message: a phone's worth, the rest further down.
        context["new_message"], context["new_message_cut"] = short_ask(
            str(payload["message"]), _NEW_MESSAGE_CHARS
        )
    if receipt is not None:
        context["r"] = receipt
        context.setdefault("status", request.status)
        context.setdefault("kind_label", receipt["kind"])
        # No decision read, or one to correct in a tap (inside its window or after).
        correctable = receipt["reading"] is not None and receipt["reading"]["decided"]
        changes = not receipt["after_outcome"]
        if (receipt["unsettled"] or correctable) and request.status != "closed" and changes:
            context["links"] = quick_links(request, reply_address)
    escalated = [str(a) for t in turns if t.kind == "escalated" for a in t.data.get("to") or []]
    context.setdefault("overdue", s["deadline_passed"])
    context.setdefault("escalated_to", ", ".join(escalated))
    context.setdefault("last_reminder", False)
    context["n"] = notice_view(item.purpose, request, payload, tz, g)
    if context["n"]["open"] and request.status != "closed" and not context["links"] and not settled:
        # A notice about a request that still waits for this lawyer keeps the buttons.
        context["links"] = quick_links(request, reply_address)
    context["preheader"] = preheader(item.purpose, s, request)
    # Wherever the answer links are, a multiple choice shows a button per choice above them.
    choices = options.shape_of(fields).choices
    context["choices"] = (
        quickreply.choice_links(reply_address, request.reference, choices)
        if context["links"]
        else []
    )
    return context


def _extra(fields: dict[str, Any], files: list[dict[str, str]]) -> list[tuple[str, str]]:
    """The agent's other properties, shown as details."""
    # ``options`` is shown as the choice buttons, not as a detail; documents listed as
    # documents are not repeated among the other details.
    known = {*_contract_fields(), *_FOR_KEYS, *PARTY_FIELDS, "options"}
    if files:
        known.add("attachments")
    return sorted((k, str(v)) for k, v in fields.items() if k not in known)


def _group_of(
    item: OutboxItem,
    request: Request,
    recipient: Recipient,
    group: GroupState | None,
    tz: ZoneInfo,
    held: bool,
    reply_address: str,
) -> tuple[dict[str, Any] | None, bool, bool]:
    """(the group block, the outcome is reached, this lawyer's vote is in), for a request
    that several approvers decide; (None, False, False) for any other."""
    g = group_view(group, recipient.address, tz, held=held)
    if group is None or g is None:
        return None, False, False
    if g["awaits_me"] and item.purpose in ANSWERABLE and recipient.role != "delegate":
        # Cannot answer it: hand it to a colleague (gateway.inbound.delegation).
        g["delegate_url"] = quickreply.mailto(
            reply_address,
            quickreply.quick_subject("DELEGATE", request.reference),
            "DELEGATE\n\n" + _("A colleague's email address:") + "\n",
        )
    # Decided: nothing this lawyer answers now can change the outcome, so nothing is asked.
    return g, group.decided, group.vote_of(recipient.address) is not None


def preheader(purpose: str, s: dict[str, Any], request: Request) -> str:
    """The inbox preview line: the ask, for whom and the deadline; the subject names the kind."""
    ask = subjects.gist(str(request.fields.get("request", "")))
    parts = [f"“{subjects.shorten(ask, 120)}”"]
    parts += [f"{p['label']}: {p['value']}" for p in s["party"]]
    if s["deadline"]:
        parts.append(
            _("Due %(when)s (%(left)s).") % {"when": s["deadline"], "left": s["deadline_left"]}
        )
    elif purpose in ANSWERABLE:
        parts.append(_("No deadline given."))
    return " · ".join(parts)


def _contract_fields() -> tuple[str, ...]:
    return contract.request_fields()
