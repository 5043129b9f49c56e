"""SQLite's JSON columns: integers beyond 64 bits are kept, and small values written compactly."""

from __future__ import annotations

from gateway.store.sqlite_setup import json_text


def test_json_columns_take_integers_beyond_64_bits() -> None:
    assert json_text({"n": 2**70, "t": "é"}) == '{"n": 1180591620717411303424, "t": "é"}'
    assert json_text({"n": 1, "t": "é"}) == '{"n":1,"t":"é"}'
