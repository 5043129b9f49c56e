"""The hot calls (filing, status) are served without the router, with the same answers."""

from __future__ import annotations

import pytest
from starlette.routing import Router

from gateway.http.access import AgentAccess
from gateway.http.responses import FastJSONResponse
from gateway.intake import lookup
from tests.conftest import Running


def calls_through(layer: type, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """ "METHOD path" of each call that reaches ``layer`` (an ASGI class) from now on."""
    seen: list[str] = []
    original = layer.__call__

    async def spy(self, scope, receive, send):  # type: ignore[no-untyped-def]
        seen.append(f"{scope['method']} {scope['path']}")
        await original(self, scope, receive, send)

    monkeypatch.setattr(layer, "__call__", spy)
    return seen


async def test_filing_and_status_do_not_go_through_the_router(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    routed = calls_through(Router, monkeypatch)
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


async def test_a_kept_status_read_is_answered_ahead_of_the_access_checks(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    if running.services.db.engine.dialect.name != "sqlite":
        pytest.skip("answers are kept on a SQLite file only")
    checked = calls_through(AgentAccess, monkeypatch)
    filed = await running.file()
    path = f"/v1/requests/{filed['reference']}"
    checked.clear()
    right = {"Authorization": f"Bearer {filed['access_token']}"}
    first = await running.http.get(path, headers=right)
    again = await running.http.get(path, headers=right)
    assert first.status_code == again.status_code == 200 and first.content == again.content
    assert checked == []
    # The bytes and the head the full path gives the same status.
    with running.services.db.read_only_rows() as conn:
        full = FastJSONResponse(
            lookup.check_status(conn, filed["reference"], filed["access_token"])
        )
    assert first.content == full.body
    assert first.headers["content-type"] == "application/json"
    assert first.headers["content-length"] == str(len(full.body))
    # A wrong token, an unknown reference and no token go on to the access checks.
    wrong = await running.http.get(path, headers={"Authorization": "Bearer nope"})
    unknown = await running.http.get("/v1/requests/HFA-99999", headers=right)
    missing = await running.http.get(path)
    assert (wrong.status_code, unknown.status_code, missing.status_code) == (404, 404, 401)
    assert checked == [f"GET {path}", "GET /v1/requests/HFA-99999", f"GET {path}"]
