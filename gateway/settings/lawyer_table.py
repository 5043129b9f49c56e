"""Who the lawyers are, who approves, and what the lawyers receive and when.

Rows of the settings table (``gateway.settings.table`` lists them in place).
"""

from __future__ import annotations

from gateway.settings.lawyers import (
    correction_window,
    display_timezone,
    from_name,
    language,
    parse_escalation,
    parse_languages,
    parse_lawyers,
)
from gateway.settings.policies import parse_delegates, parse_groups
from gateway.settings.reminders import parse_reminders
from gateway.settings.retention import parse_retention
from gateway.settings.setting import NO_FIELD, Setting, by_text

LAWYER_MAIL: tuple[Setting, ...] = (
    Setting(
        "mail_from_name",
        "Human for AI",
        "Display name on the From of lawyers' emails (empty: the bare address).",
        read=from_name,
        into="lawyer.from_name",
    ),
    Setting(
        "display_timezone",
        "UTC",
        "IANA time zone in which lawyers' emails show times and deadlines (e.g. Europe/Berlin).",
        read=display_timezone,
        into="lawyer.timezone",
    ),
    Setting(
        "language",
        "en",
        "Language of lawyers' emails by default: en, de, fr, es, it or nl. A lawyer with no "
        "language in HFA_LAWYER_LANGUAGES gets, on a request, the language of their last reply "
        "to it, else this one.",
        read=language,
        into="lawyer.language",
    ),
    Setting(
        "lawyer_languages",
        "",
        "Each lawyer's language: address=language,... (e.g. counsel@firm.test=de).",
        read=by_text(parse_languages),
        into="lawyer.languages",
    ),
)


LAWYERS: tuple[Setting, ...] = (
    Setting(
        "lawyers",
        "lawyer@localhost",
        "Comma-separated addresses that receive requests. Per category: "
        "'legal_review=a@x,b@x;human_confirmation=c@x;*=d@x'. A lawyer's other "
        "addresses follow theirs after '|' ('a@x|a.home@y'): replies from them are "
        "recorded as the lawyer's; requests go to the first address only. Anything "
        "that is not an address (name@domain) is refused at start.",
        read=by_text(parse_lawyers),
    ),
    Setting(
        "policies",
        "",
        "Approval policy per category: 'legal_review=2 of a@x,b@x,c@x; "
        "human_confirmation=any of d@x,e@x'. A rule is 'any of', 'all of' or 'N of' "
        "addresses, a group of HFA_APPROVER_GROUPS or 'lawyers' (the category's "
        "HFA_LAWYERS); groups joined by '+' ('2 of legal + 1 of finance'); steps joined by "
        "'then', each with an optional 'within 2d'; and 'veto' (a rejection ends it at "
        "once, the default) or 'wait' (rejections count until the rule cannot be met). "
        "The approvers receive the request. Empty or a category left out: any of its lawyers.",
        into=NO_FIELD,
    ),
    Setting(
        "approver_groups",
        "",
        "Named groups of approvers for HFA_POLICIES: 'legal=a@x,b@x; finance=c@x'.",
        read=by_text(parse_groups),
        into=NO_FIELD,
    ),
    Setting(
        "delegates",
        "",
        "Who answers for an approver who is away: 'a@x=b@x 2026-12-20..2027-01-02; c@x=d@x' "
        "(dates optional, both included). When the approver's out-of-office reply comes, "
        "the request goes to the delegate once, whose vote counts for the approver.",
        read=by_text(parse_delegates),
        into=NO_FIELD,
    ),
)


FOLLOW_UP: tuple[Setting, ...] = (
    Setting("receipts", True, "Send the lawyer a receipt of what was recorded (1 or 0)."),
    Setting(
        "correction_window",
        "2m",
        "How long a decision read from typed text waits before it takes effect, so the "
        "lawyer can correct it from the receipt; agents see the request as waiting until "
        "then. An answer link tapped with nothing typed under it acts at once (s, m or h; "
        "0: no window).",
        read=by_text(correction_window),
        into="lawyer.correction_window_seconds",
    ),
    Setting(
        "reminders",
        "blocking=2h,soon=24h,routine=off",
        "Reminder interval per urgency while a request waits for its first answer "
        "(s, m, h or d; off for none). Urgencies left out keep their default.",
        read=parse_reminders,
    ),
    Setting(
        "escalation",
        "",
        "Escalation addresses per category, like HFA_LAWYERS "
        "('legal_review=gc@x;*=head@x'). Empty: no escalation.",
        read=by_text(parse_escalation),
    ),
    Setting(
        "reminder_cap",
        6,
        "Most reminders sent for one request; each waits twice as long as the one before, "
        "at most a day (0: no reminders).",
        into="lawyer.reminder_cap",
    ),
    Setting(
        "escalate_after",
        2,
        "Unanswered reminders after which the request also goes to HFA_ESCALATION (0: never).",
    ),
    Setting(
        "deadline_closes",
        False,
        "1: a request whose deadline passes without an answer is closed (0: it stays open).",
    ),
    Setting(
        "scheduler_seconds", 30.0, "How often reminders, escalation and deadlines are checked."
    ),
    Setting(
        "retention",
        "",
        "How long content is kept, per kind: raw (messages as received, emails as relayed), "
        "attachments, texts (a closed, declined or answered request untouched that long is "
        "erased as by 'hfa requests erase'), e.g. raw=90d,attachments=180d,texts=730d. A "
        "kind not named, or an empty setting, keeps it for ever.",
        read=by_text(parse_retention),
    ),
    Setting(
        "ready_outbox_seconds",
        3600.0,
        "/readyz fails when the oldest pending outbox item is older than this.",
    ),
)
