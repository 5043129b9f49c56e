"""What agents and their receivers hold: reply-token keys, API keys, webhooks, A2H signing.

Rows of the settings table (``gateway.settings.table`` lists them in place).
"""

from __future__ import annotations

from gateway.settings.keys import parse_api_keys, parse_secret_keys, parse_webhook_secrets
from gateway.settings.setting import Setting

REPLY_KEYS: tuple[Setting, ...] = (
    Setting(
        "secret_keys",
        "",
        "Comma-separated secret keys for reply tokens: the last one signs, every one "
        "verifies. Rotate in two steps (new key first, restart all; then last, restart all). "
        "Empty: generated once into DATA_DIR/secret_keys.",
        secret=True,
        read=parse_secret_keys,
    ),
)


AGENTS: tuple[Setting, ...] = (
    Setting(
        "api_keys",
        "",
        "Agent API keys as name:key,name:key. When any key exists (here or from "
        "'hfa keys create'), filing needs one in X-API-Key. Empty and none created: open.",
        secret=True,
        read=parse_api_keys,
    ),
    Setting(
        "rate_limit_per_minute",
        60,
        "Requests one API key (or one client address, when open) may file per minute; 429 above.",
    ),
    Setting(
        "token_failures_per_hour",
        20,
        "Wrong access tokens one client may send per reference per hour before they answer 429 "
        "(the right token is never refused).",
    ),
    Setting(
        "webhook_secret",
        "",
        "Standard Webhooks signing secrets (whsec_...), comma-separated; each one signs, so "
        "receivers can rotate. Empty: generated once into DATA_DIR/webhook_secret.",
        secret=True,
        read=parse_webhook_secrets,
        into="webhook_secrets",
    ),
    Setting(
        "webhook_allow_private",
        False,
        "1: webhooks may reach loopback/private addresses and plain http:// URLs (tests, LANs).",
    ),
    Setting(
        "webhook_retry_seconds",
        86400.0,
        "How long a failing webhook is retried before it is dead.",
    ),
    Setting("webhook_timeout_seconds", 10.0, "Connect and read timeout of one webhook call."),
    Setting(
        "a2h_signing_key",
        "",
        "A2H RESPONSE signing key (ed25519:<base64 seed>). Empty: generated once into "
        "DATA_DIR/a2h_signing_key.",
        secret=True,
    ),
)
