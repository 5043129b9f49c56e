"""The JSON codec every request body and answer goes through.

Decoding keeps a number the gateway cannot hold as :class:`Unrepresentable`
rather than failing or rounding it, so the refusal can name the field
(``contract.storable``); encoding is compact UTF-8, the bytes every JSON answer carries.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

MAX_JSON_DEPTH = 64
# Integers are stored as 64-bit: -INT_LIMIT <= n < INT_LIMIT.
INT_LIMIT = 2**63


class Unrepresentable:
    """A number JSON may spell but nothing downstream can hold (NaN, 1e999999, 10**5000)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _parse_int(text: str) -> int | Unrepresentable:
    # Checked before int(): Python refuses more than 4,300 digits with a ValueError.
    if len(text) > 20:
        return Unrepresentable(text)
    value = int(text)
    return value if -INT_LIMIT <= value < INT_LIMIT else Unrepresentable(text)


def _parse_float(text: str) -> float | Unrepresentable:
    value = float(text)
    return value if math.isfinite(value) else Unrepresentable(text)


def loads(raw: bytes | str) -> Any:
    """json.loads, with every number the gateway cannot store left as Unrepresentable.

    Raises ValueError for text that is not JSON and RecursionError for nesting
    deeper than the interpreter's parser goes.
    """
    return json.loads(
        raw, parse_int=_parse_int, parse_float=_parse_float, parse_constant=Unrepresentable
    )


def dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON, non-ASCII text as is: the bytes every JSON answer carries.

    orjson refuses integers beyond 64 bits, which an agent's extra fields may hold:
    those values are encoded by the standard library instead, to the same text.
    """
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode(
            "utf-8"
        )
