"""Interfaces mounted beside the agent API (MCP, compatibility layers)."""

from __future__ import annotations

from starlette.routing import BaseRoute

from gateway.http.app import LifespanPart
from gateway.services import Services


def routes(services: Services) -> list[BaseRoute]:
    return []


def lifespan_parts(services: Services) -> list[LifespanPart]:
    return []
