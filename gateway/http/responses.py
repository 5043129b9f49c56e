"""JSON answers encoded by orjson: the same bytes as Starlette's JSONResponse, faster.

Both write compact UTF-8 JSON without escaping non-ASCII text. orjson refuses
integers beyond 64 bits, which an agent's extra fields may hold: those answers
are encoded by the standard library instead, so no answer ever fails to encode.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from starlette.responses import JSONResponse


class FastJSONResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        try:
            return orjson.dumps(content)
        except TypeError:
            return json.dumps(
                content, ensure_ascii=False, allow_nan=False, separators=(",", ":")
            ).encode("utf-8")
