"""Periodic jobs (reminders, escalation, deadlines) that run once across processes."""

from __future__ import annotations

import asyncio

from gateway.services import Services


def start(services: Services, stop: asyncio.Event) -> list[asyncio.Task[None]]:
    """Start the periodic jobs; returns their tasks."""
    return []
