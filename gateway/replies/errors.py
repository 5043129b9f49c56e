"""The one exception the reply package lets escape."""

from __future__ import annotations


class ReplyError(ValueError):
    """A reply that cannot be read at all (the caller records it as unparseable)."""
