"""How much the gateway accepts and how long it waits: sizes, connection caps, periods.

Rows of the settings table (``gateway.settings.table`` lists them in place).
"""

from __future__ import annotations

from gateway.settings.guard import networks
from gateway.settings.setting import Setting, above_zero

# Rows of data, alike in shape by design: one Setting each, read by its declared type.
LIMITS: tuple[Setting, ...] = (
    Setting("max_request_bytes", 262144, "Largest JSON body the HTTP API accepts (413 above)."),
    Setting("max_field_chars", 50000, "Longest text accepted in any one request field."),
    Setting("max_message_bytes", 26214400, "Largest inbound email the SMTP listener accepts."),
    Setting(
        "smtp_timeout_seconds",
        300.0,
        "SMTP: longest wait for a client's next command, and for a whole DATA (RFC 5321 "
        "4.5.3.2); 10 s while over half the connections are in use, as MTAs do under stress.",
        read=above_zero(float),
        into="listeners.smtp.timeout_seconds",
    ),
    Setting(
        "smtp_max_connections",
        100,
        "SMTP connections open at once (besides the trusted relays' reserve); 421 above. "
        "Once half are in use, each client's share shrinks with what is left.",
        read=above_zero(int),
        into="listeners.smtp.max_connections",
    ),
    Setting(
        "smtp_max_connections_per_client",
        20,
        "SMTP connections per client address: 20 fits Postfix's default concurrency to one "
        "destination (default_destination_concurrency_limit).",
        read=above_zero(int),
        into="listeners.smtp.max_connections_per_client",
    ),
    Setting(
        "trusted_relays",
        "",
        "Comma-separated IP addresses or networks of the MTAs that deliver to the SMTP "
        "listener (the Postfix in front, e.g. 127.0.0.1): they get "
        "HFA_SMTP_TRUSTED_RELAY_CONNECTIONS slots no other client can take.",
        read=networks,
        into="listeners.trusted_relays",
    ),
    Setting(
        "smtp_trusted_relay_connections",
        50,
        "SMTP connections kept for the trusted relays, on top of HFA_SMTP_MAX_CONNECTIONS.",
        read=above_zero(int),
        into="listeners.trusted_relay_connections",
    ),
    Setting(
        "http_timeout_seconds",
        30.0,
        "HTTP: longest time a request's headers and body may take to arrive (408 after).",
        read=above_zero(float),
        into="listeners.http.timeout_seconds",
    ),
    Setting(
        "http_max_connections",
        1000,
        "HTTP connections open at once; 503 above.",
        read=above_zero(int),
        into="listeners.http.max_connections",
    ),
    Setting(
        "http_max_connections_per_client",
        100,
        "HTTP connections per client address.",
        read=above_zero(int),
        into="listeners.http.max_connections_per_client",
    ),
    Setting("wait_max_seconds", 60.0, "Longest wait of a status long-poll (?wait=)."),
    Setting("events_max_seconds", 300.0, "Longest life of one event stream of a thread."),
    Setting("task_ttl_seconds", 2592000.0, "MCP tasks' ttlMs when the request has no deadline."),
    Setting(
        "outbox_retry_seconds",
        432000.0,
        "How long an email delivery is retried before it is dead (default 5 days, as MTAs).",
        read=above_zero(float),
    ),
    Setting(
        "outbox_max_attempts",
        0,
        "Optional cap on delivery attempts before an item is dead (0: none, the period decides).",
    ),
    Setting("outbox_backoff_seconds", 5.0, "First retry delay; doubles with each attempt."),
    Setting("outbox_max_backoff_seconds", 1800.0, "Longest wait between two delivery attempts."),
    Setting(
        "outbox_delay_notice_seconds",
        900.0,
        "A delivery still failing this long after it was queued is told on the thread "
        "(one system turn; another when it finally goes out).",
    ),
    Setting(
        "lease_seconds",
        20.0,
        "How long a worker holds a claimed row without renewing it; a killed worker's "
        "work is taken over after this.",
        read=above_zero(float),
    ),
    Setting(
        "heartbeat_seconds",
        5.0,
        "How often each process records that it is alive (hfa health).",
        read=above_zero(float),
    ),
    Setting(
        "ready_role_seconds",
        60.0,
        "/readyz fails when no live worker or SMTP listener has been seen for this long.",
        read=above_zero(float),
    ),
    Setting("worker_poll_seconds", 0.5, "How often idle workers look for new work."),
)
