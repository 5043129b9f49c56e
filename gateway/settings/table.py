"""Every setting the gateway reads: name, default and help, in one table.

The table feeds ``hfa settings`` and the README (a test fails when a setting is
missing from the README); ``gateway.settings.config`` reads and checks the values.
"""

from __future__ import annotations

from gateway.errors import ConfigError
from gateway.settings.audit_table import AUDIT_SETTINGS
from gateway.settings.http_table import HTTP_SETTINGS
from gateway.settings.setting import Setting

CATEGORIES = ("legal_review", "human_confirmation", "physical_action", "operator_escalation")


def by_category(
    value: str, setting: str, what: str, categories: tuple[str, ...] = CATEGORIES
) -> list[tuple[str, str]]:
    """``CATEGORY=WHAT; *=WHAT`` -> [(category or '*', its text)], in the order written.

    HFA_LAWYERS and HFA_POLICIES are written this way; a part with no ``=`` or an
    unknown category is refused naming the setting and the categories it takes.
    """
    out: list[tuple[str, str]] = []
    for part in (p.strip() for p in value.split(";")):
        if not part:
            continue
        key, sep, text = part.partition("=")
        key = key.strip()
        if not sep or (key != "*" and key not in categories):
            raise ConfigError(
                f"{setting}: expected CATEGORY={what};... with CATEGORY one of "
                f"{', '.join(categories)} or *, got {part!r}"
            )
        out.append((key, text))
    return out


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "data_dir", "./var", "Directory for the SQLite database, keys, Maildir and audit.jsonl."
    ),
    Setting(
        "database_url",
        "",
        "SQLAlchemy URL. Empty: SQLite at DATA_DIR/gateway.db. "
        "PostgreSQL: postgresql+psycopg://user@host/db.",
        secret=True,
    ),
    Setting("http_bind", "127.0.0.1:8080", "host:port of the agent HTTP API."),
    Setting("smtp_bind", "127.0.0.1:2525", "host:port of the inbound SMTP listener for replies."),
    Setting("smtp_hostname", "localhost", "Hostname the SMTP listener announces in its greeting."),
    Setting("public_url", "", "Base URL used in thread_url. Empty: http://HTTP_BIND."),
    Setting("reply_domain", "localhost", "Domain of reply addresses (reply+TOKEN@DOMAIN)."),
    Setting("mail_from", "", "From address of outgoing mail. Empty: hfa-gateway@REPLY_DOMAIN."),
    Setting(
        "mail_from_name",
        "Human for AI",
        "Display name on the From of lawyers' emails (empty: the bare address).",
    ),
    Setting(
        "display_timezone",
        "UTC",
        "IANA time zone in which lawyers' emails show times and deadlines (e.g. Europe/Berlin).",
    ),
    Setting(
        "language",
        "en",
        "Language of lawyers' emails by default: en, de, fr, es, it or nl. A lawyer with no "
        "language in HFA_LAWYER_LANGUAGES gets, on a request, the language of their last reply "
        "to it, else this one.",
    ),
    Setting(
        "lawyer_languages",
        "",
        "Each lawyer's language: address=language,... (e.g. counsel@firm.test=de).",
    ),
    Setting(
        "smtp_relay",
        "",
        "host:port of the relay for outgoing mail. Empty: write mail to DATA_DIR/maildir. "
        "The worker keeps at most 32 connections open to it, each reused for up to 100 "
        "messages.",
    ),
    Setting("smtp_relay_username", "", "Username for the relay (optional)."),
    Setting(
        "smtp_relay_dot_timeout_seconds",
        "600",
        "How long to wait for the relay's answer to the end of a message (RFC 5321 "
        "4.5.3.2.6: 10 minutes). Once its final dot is sent, the message is not sent again "
        "before this wait is over, even after a restart.",
    ),
    Setting("smtp_relay_password", "", "Password for the relay (optional).", secret=True),
    Setting(
        "smtp_relay_tls",
        "none",
        "TLS towards the relay: none, starttls or tls. With TLS the relay's certificate "
        "and name are always verified.",
    ),
    Setting(
        "smtp_relay_ca_file",
        "",
        "PEM file of the CA(s) that verify the relay's certificate. Empty: the system's CAs.",
    ),
    Setting(
        "smtp_tls_cert_file",
        "",
        "PEM certificate chain for STARTTLS on the SMTP listener. Empty: no STARTTLS "
        "(the MTA in front does TLS).",
    ),
    Setting("smtp_tls_key_file", "", "PEM private key of HFA_SMTP_TLS_CERT_FILE."),
    Setting(
        "dkim_selector",
        "",
        "DKIM selector that signs outgoing mail (key in DNS at SELECTOR._domainkey.DOMAIN). "
        "Empty: mail is not signed.",
    ),
    Setting("dkim_domain", "", "DKIM signing domain (d=). Empty: the domain of HFA_MAIL_FROM."),
    Setting(
        "dkim_private_key_file",
        "",
        "PEM file of the DKIM private key (RSA), readable only by the gateway's user.",
    ),
    Setting(
        "lawyers",
        "lawyer@localhost",
        "Comma-separated addresses that receive requests. Per category: "
        "'legal_review=a@x,b@x;human_confirmation=c@x;*=d@x'. A lawyer's other "
        "addresses follow theirs after '|' ('a@x|a.home@y'): replies from them are "
        "recorded as the lawyer's; requests go to the first address only. Anything "
        "that is not an address (name@domain) is refused at start.",
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
    ),
    Setting(
        "approver_groups",
        "",
        "Named groups of approvers for HFA_POLICIES: 'legal=a@x,b@x; finance=c@x'.",
    ),
    Setting(
        "delegates",
        "",
        "Who answers for an approver who is away: 'a@x=b@x 2026-12-20..2027-01-02; c@x=d@x' "
        "(dates optional, both included). When the approver's out-of-office reply comes, "
        "the request goes to the delegate once, whose vote counts for the approver.",
    ),
    Setting(
        "secret_keys",
        "",
        "Comma-separated secret keys for reply tokens: the last one signs, every one "
        "verifies. Rotate in two steps (new key first, restart all; then last, restart all). "
        "Empty: generated once into DATA_DIR/secret_keys.",
        secret=True,
    ),
    Setting("max_request_bytes", "262144", "Largest JSON body the HTTP API accepts (413 above)."),
    Setting("max_field_chars", "50000", "Longest text accepted in any one request field."),
    Setting("max_message_bytes", "26214400", "Largest inbound email the SMTP listener accepts."),
    Setting(
        "smtp_timeout_seconds",
        "300",
        "SMTP: longest wait for a client's next command, and for a whole DATA (RFC 5321 "
        "4.5.3.2); 10 s while over half the connections are in use, as MTAs do under stress.",
    ),
    Setting(
        "smtp_max_connections",
        "100",
        "SMTP connections open at once (besides the trusted relays' reserve); 421 above. "
        "Once half are in use, each client's share shrinks with what is left.",
    ),
    Setting(
        "smtp_max_connections_per_client",
        "20",
        "SMTP connections per client address: 20 fits Postfix's default concurrency to one "
        "destination (default_destination_concurrency_limit).",
    ),
    Setting(
        "trusted_relays",
        "",
        "Comma-separated IP addresses or networks of the MTAs that deliver to the SMTP "
        "listener (the Postfix in front, e.g. 127.0.0.1): they get "
        "HFA_SMTP_TRUSTED_RELAY_CONNECTIONS slots no other client can take.",
    ),
    Setting(
        "smtp_trusted_relay_connections",
        "50",
        "SMTP connections kept for the trusted relays, on top of HFA_SMTP_MAX_CONNECTIONS.",
    ),
    Setting(
        "http_timeout_seconds",
        "30",
        "HTTP: longest time a request's headers and body may take to arrive (408 after).",
    ),
    Setting("http_max_connections", "1000", "HTTP connections open at once; 503 above."),
    Setting("http_max_connections_per_client", "100", "HTTP connections per client address."),
    Setting("wait_max_seconds", "60", "Longest wait of a status long-poll (?wait=)."),
    Setting("events_max_seconds", "300", "Longest life of one event stream of a thread."),
    Setting("task_ttl_seconds", "2592000", "MCP tasks' ttlMs when the request has no deadline."),
    Setting(
        "outbox_retry_seconds",
        "432000",
        "How long an email delivery is retried before it is dead (default 5 days, as MTAs).",
    ),
    Setting(
        "outbox_max_attempts",
        "0",
        "Optional cap on delivery attempts before an item is dead (0: none, the period decides).",
    ),
    Setting("outbox_backoff_seconds", "5", "First retry delay; doubles with each attempt."),
    Setting("outbox_max_backoff_seconds", "1800", "Longest wait between two delivery attempts."),
    Setting(
        "outbox_delay_notice_seconds",
        "900",
        "A delivery still failing this long after it was queued is told on the thread "
        "(one system turn; another when it finally goes out).",
    ),
    Setting(
        "lease_seconds",
        "20",
        "How long a worker holds a claimed row without renewing it; a killed worker's "
        "work is taken over after this.",
    ),
    Setting(
        "heartbeat_seconds", "5", "How often each process records that it is alive (hfa health)."
    ),
    Setting(
        "ready_role_seconds",
        "60",
        "/readyz fails when no live worker or SMTP listener has been seen for this long.",
    ),
    Setting("worker_poll_seconds", "0.5", "How often idle workers look for new work."),
    Setting(
        "trusted_authserv_id",
        "",
        "authserv-id whose Authentication-Results headers are trusted. Empty: none.",
    ),
    Setting(
        "require_authenticated_sender",
        "0",
        "1: a reply is recorded only when the trusted server says DMARC or a DKIM signature "
        "aligned with From passed; others are held for ops (needs HFA_TRUSTED_AUTHSERV_ID).",
    ),
    Setting(
        "weak_sender_decisions",
        "confirm",
        "A decision (approve, reject, decline, close) from a lawyer domain that publishes no "
        "DMARC policy and is not in HFA_SENDER_POLICY, with nothing but the reply address to "
        "prove its sender (dmarc=none, a DKIM pass not aligned with From, spf=fail, no "
        "Authentication-Results): confirm holds it and asks the lawyer to confirm it by "
        "email; record records it on the reply address alone (the behaviour before 2026-12).",
    ),
    Setting(
        "dns_resolver",
        "",
        "Where the gateway looks up DKIM keys and DMARC policies when no trusted server "
        "wrote Authentication-Results: an IP address with an optional port (127.0.0.1:53). "
        "Empty: the system's resolver; off: no lookups (replies then rest on the trusted "
        "server's results or the reply address alone).",
    ),
    Setting(
        "arc_trusted_sealers",
        "",
        "Domains whose ARC seals are believed (a firm's Microsoft 365 or Google tenant that "
        "forwards its mail), separated by commas. Empty: ARC is not used.",
    ),
    Setting(
        "sender_policy",
        "",
        "What replies from a lawyer domain must show, per domain "
        "('firm.test=dmarc,other.test=token'): dmarc (aligned DKIM, or SPF pass at the "
        "trusted server), dkim (aligned DKIM) or token (the reply address alone). Domains "
        "not listed: a decision needs aligned DKIM when the domain publishes a DMARC policy.",
    ),
    Setting("receipts", "1", "Send the lawyer a receipt of what was recorded (1 or 0)."),
    Setting(
        "correction_window",
        "2m",
        "How long a decision read from typed text waits before it takes effect, so the "
        "lawyer can correct it from the receipt; agents see the request as waiting until "
        "then. An answer link tapped with nothing typed under it acts at once (s, m or h; "
        "0: no window).",
    ),
    Setting(
        "reminders",
        "blocking=2h,soon=24h,routine=off",
        "Reminder interval per urgency while a request waits for its first answer "
        "(s, m, h or d; off for none). Urgencies left out keep their default.",
    ),
    Setting(
        "escalation",
        "",
        "Escalation addresses per category, like HFA_LAWYERS "
        "('legal_review=gc@x;*=head@x'). Empty: no escalation.",
    ),
    Setting(
        "reminder_cap",
        "6",
        "Most reminders sent for one request; each waits twice as long as the one before, "
        "at most a day (0: no reminders).",
    ),
    Setting(
        "escalate_after",
        "2",
        "Unanswered reminders after which the request also goes to HFA_ESCALATION (0: never).",
    ),
    Setting(
        "deadline_closes",
        "0",
        "1: a request whose deadline passes without an answer is closed (0: it stays open).",
    ),
    Setting(
        "scheduler_seconds", "30", "How often reminders, escalation and deadlines are checked."
    ),
    Setting(
        "retention",
        "",
        "How long content is kept, per kind: raw (messages as received, emails as relayed), "
        "attachments, texts (a closed, declined or answered request untouched that long is "
        "erased as by 'hfa requests erase'), e.g. raw=90d,attachments=180d,texts=730d. A "
        "kind not named, or an empty setting, keeps it for ever.",
    ),
    Setting(
        "ready_outbox_seconds",
        "3600",
        "/readyz fails when the oldest pending outbox item is older than this.",
    ),
    Setting(
        "api_keys",
        "",
        "Agent API keys as name:key,name:key. When any key exists (here or from "
        "'hfa keys create'), filing needs one in X-API-Key. Empty and none created: open.",
        secret=True,
    ),
    Setting(
        "rate_limit_per_minute",
        "60",
        "Requests one API key (or one client address, when open) may file per minute; 429 above.",
    ),
    Setting(
        "token_failures_per_hour",
        "20",
        "Wrong access tokens one client may send per reference per hour before they answer 429 "
        "(the right token is never refused).",
    ),
    Setting(
        "webhook_secret",
        "",
        "Standard Webhooks signing secrets (whsec_...), comma-separated; each one signs, so "
        "receivers can rotate. Empty: generated once into DATA_DIR/webhook_secret.",
        secret=True,
    ),
    Setting(
        "webhook_allow_private",
        "0",
        "1: webhooks may reach loopback/private addresses and plain http:// URLs (tests, LANs).",
    ),
    Setting(
        "webhook_retry_seconds",
        "86400",
        "How long a failing webhook is retried before it is dead.",
    ),
    Setting("webhook_timeout_seconds", "10", "Connect and read timeout of one webhook call."),
    Setting(
        "a2h_signing_key", "", "A2H RESPONSE signing key (ed25519:<base64 seed>).", secret=True
    ),
    *AUDIT_SETTINGS,
    Setting(
        "tsa_url",
        "",
        "An RFC 3161 time-stamping authority (http(s) URL): 'hfa evidence export' has it "
        "timestamp the bundle's checkpoint. Empty: bundles carry no trusted time.",
    ),
    *HTTP_SETTINGS,
)
