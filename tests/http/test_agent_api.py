"""The agent API's refusals: one error shape, and a message that says what to fix."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from gateway import contract
from gateway.http.openapi import ERROR_SCHEMA
from tests.conftest import Running, make_config, start_running, stop_running


def error_of(response: Any) -> dict[str, Any]:
    body = response.json()
    jsonschema.validate(body, ERROR_SCHEMA)
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    error: dict[str, Any] = body["error"]
    return error


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"request": "x"}, "category", "required"),
        ({"category": "legal_review"}, "request", "required"),
        ({"category": "tax_advice", "request": "x"}, "category", "legal_review"),
        ({"category": "legal_review", "request": "x", "urgency": "asap"}, "urgency", "blocking"),
        ({"category": "legal_review", "request": 42}, "request", "string"),
        ({"category": "legal_review", "request": "   "}, "request", "empty"),
    ],
)
async def test_schema_violations_are_422_naming_the_field(
    running: Running, body: dict[str, Any], field: str, words: str
) -> None:
    response = await running.http.post("/v1/requests", json=body)
    assert response.status_code == 422
    error = error_of(response)
    assert error["code"] == "invalid_request"
    fields = [d["field"] for d in error["details"]]
    assert field in fields
    detail = next(d for d in error["details"] if d["field"] == field)
    assert words in detail["message"]


async def test_several_problems_are_reported_together(running: Running) -> None:
    response = await running.http.post("/v1/requests", json={"urgency": "now"})
    fields = sorted(d["field"] for d in error_of(response)["details"])
    assert fields == ["category", "request", "urgency"]


async def test_non_json_is_400(running: Running) -> None:
    response = await running.http.post(
        "/v1/requests",
        content=b'{"category": "legal_review",',
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "malformed_body" and "line 1" in error["message"]
    response = await running.http.post("/v1/requests", json=["not", "an", "object"])
    assert response.status_code == 400 and "object" in error_of(response)["message"]
    response = await running.http.post(
        "/v1/requests",
        content=b"category=x",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 400 and "application/json" in error_of(response)["message"]


async def test_oversized_body_is_413(tmp_path: Any, database_url: str, sink: Any) -> None:
    running = await start_running(
        make_config(tmp_path, max_request_bytes="2048", database_url=database_url), sink
    )
    try:
        body = {"category": "legal_review", "request": "x" * 5000}
        response = await running.http.post("/v1/requests", json=body)
        assert response.status_code == 413
        assert "2048" in error_of(response)["message"]
        # Chunked upload with no Content-Length is capped as well.
        raw = json.dumps(body).encode()

        async def chunks() -> Any:
            for i in range(0, len(raw), 500):
                yield raw[i : i + 500]

        response = await running.http.post(
            "/v1/requests", content=chunks(), headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 413
    finally:
        await stop_running(running)


async def test_over_long_field_is_422(tmp_path: Any, database_url: str, sink: Any) -> None:
    running = await start_running(
        make_config(tmp_path, max_field_chars="100", database_url=database_url), sink
    )
    try:
        response = await running.http.post(
            "/v1/requests", json={"category": "legal_review", "request": "y" * 101}
        )
        assert response.status_code == 422
        assert "at most 100" in error_of(response)["details"][0]["message"]
    finally:
        await stop_running(running)


async def test_wrong_token_and_unknown_reference_look_the_same(running: Running) -> None:
    filed = await running.file()
    wrong = await running.http.get(
        f"/v1/requests/{filed['reference']}", headers={"Authorization": "Bearer hfat_wrong"}
    )
    unknown = await running.http.get(
        "/v1/requests/HFA-99999", headers={"Authorization": f"Bearer {filed['access_token']}"}
    )
    garbage = await running.http.get(
        "/v1/requests/nonsense", headers={"Authorization": f"Bearer {filed['access_token']}"}
    )
    assert wrong.status_code == unknown.status_code == garbage.status_code == 404
    assert wrong.content == unknown.content == garbage.content
    post_wrong = await running.http.post(
        f"/v1/requests/{filed['reference']}/messages",
        json={"message": "hi"},
        headers={"Authorization": "Bearer hfat_wrong"},
    )
    assert post_wrong.status_code == 404 and post_wrong.content == wrong.content


async def test_missing_bearer_says_how_to_send_it(running: Running) -> None:
    filed = await running.file()
    response = await running.http.get(f"/v1/requests/{filed['reference']}")
    assert response.status_code == 401
    assert "Authorization: Bearer" in error_of(response)["message"]


async def test_thread_url_does_not_open_with_a_guess(running: Running) -> None:
    filed = await running.file()
    response = await running.http.get("/v1/threads/hfar_guess")
    assert response.status_code == 404
    # The access token is not a read capability, nor the other way round.
    capability = filed["thread_url"].rsplit("/", 1)[1]
    assert (await running.http.get(f"/v1/threads/{filed['access_token']}")).status_code == 404
    response = await running.http.get(
        f"/v1/requests/{filed['reference']}", headers={"Authorization": f"Bearer {capability}"}
    )
    assert response.status_code == 404


async def test_idempotent_submit(running: Running) -> None:
    body = {"category": "physical_action", "request": "Notarise the deed on Friday."}
    headers = {"Idempotency-Key": "deed-2026-11-30"}
    first = await running.http.post("/v1/requests", json=body, headers=headers)
    again = await running.http.post("/v1/requests", json=body, headers=headers)
    assert first.status_code == 201 and again.status_code == 200
    one, two = first.json(), again.json()
    jsonschema.validate(two, contract.tool(contract.REQUEST_TOOL)["outputSchema"])
    assert one["reference"] == two["reference"]
    assert two["access_token"] == "" and "not shown again" in two["notice"]
    assert one["access_token"] not in json.dumps(two)
    other = await running.http.post(
        "/v1/requests", json=body | {"urgency": "blocking"}, headers=headers
    )
    assert other.status_code == 409
    assert error_of(other)["details"][0]["field"] == "Idempotency-Key"
    # One request, one email.
    await running.sink.wait_for(1)
    third = await running.file()
    assert int(third["reference"][4:]) == int(one["reference"][4:]) + 1


async def test_extra_properties_are_kept_and_shown_back(running: Running) -> None:
    filed = await running.file(matter_id="M-2026-117", budget={"cap": 5000, "currency": "EUR"})
    thread = await running.status(filed)
    first = thread["turns"][0]
    assert first["matter_id"] == "M-2026-117"
    assert first["budget"] == {"cap": 5000, "currency": "EUR"}


async def test_unknown_endpoint_and_method_use_the_same_error_shape(running: Running) -> None:
    missing = await running.http.get("/v2/nothing")
    assert missing.status_code == 404 and error_of(missing)["code"] == "not_found"
    wrong_method = await running.http.delete("/v1/requests")
    assert wrong_method.status_code == 405
    assert error_of(wrong_method)["code"] == "method_not_allowed"


async def test_health_and_openapi(running: Running) -> None:
    health = await running.http.get("/healthz")
    assert health.status_code == 200 and health.json()["status"] == "ok"
    spec = (await running.http.get("/openapi.json")).json()
    assert spec["openapi"].startswith("3.")
    post = spec["paths"]["/v1/requests"]["post"]
    assert (
        post["requestBody"]["content"]["application/json"]["schema"]
        == (contract.tool(contract.REQUEST_TOOL)["inputSchema"])
    )
    assert "/v1/requests/{reference}" in spec["paths"]
