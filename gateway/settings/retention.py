"""HFA_RETENTION: how long each kind of content is kept, read once.

``raw=90d,attachments=180d,texts=730d``: messages as received and emails as relayed
(``raw``), the files that came with replies (``attachments``), and the texts of requests
that ended (``texts``: erased as ``hfa requests erase`` does). A kind not named is kept
for ever; so is everything when the setting is empty (the default).
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.errors import ConfigError
from gateway.settings.durations import seconds_of

KINDS = ("raw", "attachments", "texts")
_EXPECTED = (
    "HFA_RETENTION: expected KIND=DURATION pairs, comma-separated, KIND one of raw, "
    "attachments, texts and DURATION like 90d, 12h or 3600 (e.g. raw=90d,texts=730d)"
)


@dataclass(frozen=True)
class Retention:
    """Seconds each kind is kept; None: for ever."""

    raw: float | None = None
    attachments: float | None = None
    texts: float | None = None

    def shortest(self) -> float | None:
        kept = [s for s in (self.raw, self.attachments, self.texts) if s is not None]
        return min(kept) if kept else None


def parse_retention(text: str) -> Retention:
    found: dict[str, float] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        kind, sep, duration = item.partition("=")
        kind = kind.strip().lower()
        if not sep or kind not in KINDS:
            raise ConfigError(f"{_EXPECTED}; got {item!r}")
        if kind in found:
            raise ConfigError(f"HFA_RETENTION: {kind} is named twice")
        seconds = seconds_of(duration)
        if seconds is None or seconds <= 0:
            raise ConfigError(f"{_EXPECTED}; got {duration.strip()!r} for {kind}")
        found[kind] = seconds
    return Retention(**found)
