"""The OpenAPI document describes the status's ``policy`` object where it is."""

from __future__ import annotations

import jsonschema

from gateway.policy import POLICY_SCHEMA
from tests.conftest import LAWYER, Running


async def test_the_status_policy_object_is_in_the_document(running: Running) -> None:
    spec = (await running.http.get("/openapi.json")).json()
    assert spec["components"]["schemas"]["Policy"] == POLICY_SCHEMA
    status = spec["paths"]["/v1/requests/{reference}"]["get"]["responses"]["200"]
    schema = status["content"]["application/json"]["schema"]
    # The status object is closed by the contract; the policy rides on the opening turn.
    assert schema["additionalProperties"] is False and "policy" not in schema["properties"]
    turn = schema["properties"]["turns"]["items"]
    assert turn["properties"]["policy"] == {"$ref": "#/components/schemas/Policy"}

    filed = await running.file()
    read = await running.status(filed)
    resolver = {"components": spec["components"], **schema}
    jsonschema.Draft202012Validator(resolver).validate(read)
    policy = read["turns"][0]["policy"]
    jsonschema.Draft202012Validator(POLICY_SCHEMA).validate(policy)
    assert policy["outcome"] == "pending" and policy["waiting_for"] == [LAWYER]
