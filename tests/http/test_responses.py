"""JSON answers written by orjson: the bytes Starlette writes, and integers beyond 64 bits."""

from __future__ import annotations

import json

from starlette.responses import JSONResponse

from gateway.http.responses import FastJSONResponse


def test_fast_json_writes_the_bytes_starlette_writes() -> None:
    content = {"text": 'Prüfung § 7\u2028\n\x01 "quoted" /', "n": [1, 2.5, None, True]}
    assert FastJSONResponse(content).body == JSONResponse(content).body


def test_fast_json_encodes_integers_beyond_64_bits() -> None:
    huge = {"n": 2**70}
    assert json.loads(bytes(FastJSONResponse(huge).body)) == huge
