"""The settings of the HTTP API as operators run it: behind a proxy, logged, scraped."""

from __future__ import annotations

from gateway.settings.guard import networks
from gateway.settings.setting import Setting, stripped, switch

HTTP_SETTINGS: tuple[Setting, ...] = (
    Setting(
        "trusted_proxies",
        "",
        "Comma-separated IP addresses or networks of the reverse proxies in front of the "
        "HTTP API (e.g. 127.0.0.1). A call they pass on is the client's named by "
        "X-Forwarded-For (the last address that is not a trusted proxy): rate limits, "
        "the audit actor and the access log see that client, and a proxy's connections "
        "are not capped per client (HFA_HTTP_MAX_CONNECTIONS still counts them). Empty: "
        "X-Forwarded-For is ignored, from anyone.",
        read=networks,
        into="listeners.trusted_proxies",
    ),
    Setting(
        "access_log",
        True,
        "1: one log line per HTTP request (logger gateway.access: method, path without "
        "the query, status, duration, client); 0: none.",
        read=switch,
        into="listeners.access_log",
    ),
    Setting(
        "metrics_token",
        "",
        "GET /metrics answers only 'Authorization: Bearer <this token>'. Empty: only "
        "clients on this machine's loopback that came through no proxy (no "
        "X-Forwarded-For, no Forwarded header).",
        secret=True,
        read=stripped,
        into="listeners.metrics_token",
    ),
)
