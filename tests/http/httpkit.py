"""What the HTTP tests share: the access log's lines, and an agent's calls on its own thread."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.conftest import Running


def access_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "gateway.access"]


def bearer(filed: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {filed['access_token']}"}


async def add(running: Running, filed: dict[str, Any], text: str) -> None:
    response = await running.http.post(
        f"/v1/requests/{filed['reference']}/messages", json={"message": text}, headers=bearer(filed)
    )
    assert response.status_code == 201, response.text
