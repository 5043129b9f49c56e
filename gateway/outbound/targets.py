"""How a delivery target is shown in logs, the audit and the thread: without its secrets."""

from __future__ import annotations

import logging
import re
from urllib.parse import urlsplit


def shown_target(target: str) -> str:
    """The target as logs and the audit show it: a URL's query (and any user:password)
    may carry the receiver's secret, so only scheme, host, port and path are kept."""
    try:
        parts = urlsplit(target)
        port = parts.port
    except ValueError:
        return _URL_QUERY.sub(r"\1?...", target)
    if not parts.scheme or not parts.hostname:
        return target
    query = "?..." if parts.query else ""
    return f"{parts.scheme}://{parts.hostname}{f':{port}' if port else ''}{parts.path}{query}"


_URL_QUERY = re.compile(r"((?:https?|wss?)://[^\s?#]*)\?[^\s#]*", re.IGNORECASE)


def without_url_secrets(text: str) -> str:
    """``text`` (an error, a log line) with every URL's query replaced by ``?...``."""
    return _URL_QUERY.sub(r"\1?...", text)


class _NoUrlSecrets(logging.Filter):
    """httpx logs each request with its full URL: the line keeps all but the query."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = without_url_secrets(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        return True


logging.getLogger("httpx").addFilter(_NoUrlSecrets())
