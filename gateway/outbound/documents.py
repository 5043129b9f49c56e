"""The documents an agent filed with its request, shown as documents: name, size, link.

An agent names its files in the ``attachments`` property (a list of objects with
``name``, ``size`` in bytes and ``url``; a bare string is a name or a URL). They
are listed near the top of the email, before the context, so a lawyer sees what
there is to read before reading it. The names and links are the agent's words:
only an http(s) URL becomes a link, its host is shown beside it, and anything
else is shown as text.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from babel.numbers import format_decimal

from gateway import i18n
from gateway.i18n import _

# More than this many are listed as "and N more" (the rest stay in the record).
MAX_LISTED = 20
_NAME_CHARS = 200


def human_size(size: int) -> str:
    """``482 KB``, ``1.4 MB`` (``1,4 MB`` in German): bytes as a reader counts them."""
    if size < 1024:
        return _("%(n)s bytes") % {"n": size}
    if size < 1024 * 1024:
        value, unit = size / 1024, "KB"
    elif size < 1024**3:
        value, unit = size / 1048576, "MB"
    else:
        value, unit = size / 1024**3, "GB"
    shown = format_decimal(
        value, format="#,##0" if value >= 100 else "#,##0.#", locale=i18n.locale()
    )
    return f"{shown}\u00a0{unit}"


def _link(value: object) -> tuple[str, str]:
    """(URL, host) for an http(s) URL; ("", "") for anything else, shown as text only."""
    text = str(value or "").strip()
    if not text.lower().startswith(("http://", "https://")) or any(c.isspace() for c in text):
        return "", ""
    try:
        parts = urlsplit(text)
    except ValueError:
        return "", ""
    host = parts.hostname or ""
    return (text, host) if host else ("", "")


def _size(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return ""
    return human_size(int(value))


def _one(entry: object) -> dict[str, str] | None:
    if isinstance(entry, str):
        url, host = _link(entry)
        name = urlsplit(url).path.rsplit("/", 1)[-1] if url else entry
        return {"name": (name or entry)[:_NAME_CHARS], "size": "", "url": url, "host": host}
    if not isinstance(entry, dict):
        return None
    url, host = _link(entry.get("url") or entry.get("href") or entry.get("link"))
    name = str(entry.get("name") or entry.get("filename") or entry.get("title") or "").strip()
    if not name:
        name = urlsplit(url).path.rsplit("/", 1)[-1] if url else _("(no name given)")
    return {
        "name": name[:_NAME_CHARS],
        "size": _size(entry.get("size") if "size" in entry else entry.get("bytes")),
        "url": url,
        "host": host,
    }


def documents(fields: dict[str, Any]) -> list[dict[str, str]]:
    """The request's ``attachments`` as a list to show ([] when it has none, or no list)."""
    files = fields.get("attachments")
    if not isinstance(files, list):
        return []
    shown = [d for d in (_one(f) for f in files[:MAX_LISTED]) if d is not None]
    if len(files) > MAX_LISTED:
        more = len(files) - MAX_LISTED
        shown.append({"name": _("and %(n)s more") % {"n": more}, "size": "", "url": "", "host": ""})
    return shown
