"""JSON answers encoded by orjson: the same bytes as Starlette's JSONResponse, faster.

Both write compact UTF-8 JSON without escaping non-ASCII text. orjson refuses
integers beyond 64 bits, which an agent's extra fields may hold: those answers
are encoded by the standard library instead, so no answer ever fails to encode
(``contract.dumps``).
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from gateway import contract


class FastJSONResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        return contract.dumps(content)
