"""The hot calls (filing, status) are served without the router, with the same answers."""

from __future__ import annotations

import json

import pytest
from starlette.responses import JSONResponse
from starlette.routing import Router

from gateway.http.responses import FastJSONResponse
from tests.conftest import Running


async def test_filing_and_status_do_not_go_through_the_router(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    routed: list[str] = []
    original = Router.__call__

    async def spy(self: Router, scope, receive, send):  # type: ignore[no-untyped-def]
        routed.append(f"{scope['method']} {scope['path']}")
        await original(self, scope, receive, send)

    monkeypatch.setattr(Router, "__call__", spy)
    filed = await running.file()
    headers = {"Authorization": f"Bearer {filed['access_token']}"}
    status = await running.http.get(f"/v1/requests/{filed['reference']}", headers=headers)
    assert status.status_code == 200 and status.json()["turns"][0]["kind"] == "request"
    assert routed == []
    # Everything else still takes the router, HEAD of the status path included.
    await running.http.head(f"/v1/requests/{filed['reference']}", headers=headers)
    await running.http.get("/healthz")
    assert routed == [f"HEAD /v1/requests/{filed['reference']}", "GET /healthz"]


async def test_hot_calls_answer_errors_in_the_one_error_shape(running: Running) -> None:
    filed = await running.file()
    no_token = await running.http.get(f"/v1/requests/{filed['reference']}")
    assert no_token.status_code == 401
    assert no_token.json()["error"]["details"][0]["field"] == "Authorization"
    wrong = await running.http.get(
        f"/v1/requests/{filed['reference']}", headers={"Authorization": "Bearer nope"}
    )
    unknown = await running.http.get(
        "/v1/requests/HFA-99999", headers={"Authorization": "Bearer nope"}
    )
    assert wrong.status_code == unknown.status_code == 404
    assert wrong.content == unknown.content
    refused = await running.http.post("/v1/requests", json={"request": "x"})
    assert refused.status_code == 422
    assert refused.json()["error"]["details"][0]["field"] == "category"


def test_fast_json_writes_the_bytes_starlette_writes() -> None:
    content = {"text": 'Prüfung § 7\u2028\n\x01 "quoted" /', "n": [1, 2.5, None, True]}
    assert FastJSONResponse(content).body == JSONResponse(content).body


def test_fast_json_encodes_integers_beyond_64_bits() -> None:
    huge = {"n": 2**70}
    assert json.loads(bytes(FastJSONResponse(huge).body)) == huge
