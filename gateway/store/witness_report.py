"""How far behind each witness is: for ``hfa health`` and the metrics.

The leading sequencer keeps, per witness, the size it cosigned last, when it last
cosigned, and its last error (``gateway_state`` ``audit_witnesses``); the lag is the
newest checkpoint's size less that size. Read without the ORM: ``hfa health`` loads this.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.store import direct

WITNESSES = "audit_witnesses"
# {"size", "note"}: the newest checkpoint a quorum of witnesses cosigned, with their lines.
COSIGNED = "audit_cosigned"
_SELECT = (
    "SELECT (SELECT value FROM gateway_state WHERE name = 'audit_witnesses'), "
    "(SELECT max(tree_size) FROM audit_checkpoints)"
)


@dataclass(frozen=True)
class WitnessReport:
    name: str
    size: int
    lag: int
    ok_at: str | None
    error: str | None


def reports_of(known: Any, newest: int) -> list[WitnessReport]:
    if isinstance(known, str):
        known = json.loads(known)
    if not isinstance(known, dict):
        return []
    return [
        WitnessReport(
            str(name),
            int(row.get("size", 0)),
            max(0, newest - int(row.get("size", 0))),
            row.get("ok_at"),
            row.get("error"),
        )
        for name, row in sorted(known.items())
        if isinstance(row, dict)
    ]


def read_reports(url: str, data_dir: Path) -> list[WitnessReport]:
    """With the database's own driver, as ``hfa health`` reads."""
    rows = direct.read(url, data_dir, _SELECT)
    known, newest = rows[0] if rows else (None, 0)
    return reports_of(known, int(newest or 0))
