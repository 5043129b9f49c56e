"""The root of the HTTP API says what this is and where to go next."""

from __future__ import annotations

from tests.conftest import Running


async def test_the_root_says_what_this_is_and_links_the_api_description(running: Running) -> None:
    answer = await running.http.get("/")
    assert answer.status_code == 200
    body = answer.json()
    assert body["service"] == "hfa-gateway" and "lawyer" in body["about"]
    for name in ("openapi", "health"):
        followed = await running.http.get(body["links"][name])
        assert followed.status_code == 200, name
    assert body["links"]["openapi"] == "/openapi.json" and body["links"]["health"] == "/healthz"
    assert "/" in (await running.http.get("/openapi.json")).json()["paths"]
