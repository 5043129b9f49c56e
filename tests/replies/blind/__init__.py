"""Decision sets written blind: by someone who had not read the word tables or the
reader, from the product's description and the language alone, and committed before
they were first run.

A case is never edited to pass: its checksum is pinned in ``test_blind.py``. A case
whose expected reading contradicts the product's rules may be changed only with the
reason in the commit. Cases the reader gets wrong stay, counted by ``bench.blind``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETS = {
    "2026-12": HERE / "set_2026_12.json",
    "2026-12b": HERE / "set_2026_12b.json",
    "2026-12c": HERE / "set_2026_12c.json",
    "2026-12d": HERE / "set_2026_12d.json",
}
# Pinned when the set was committed, before it was first run.
CHECKSUMS = {
    "2026-12": "1575021ec7aa7ed040351f87fba6930e772e5d4c2ed6b901c1f3f1a632ae3d22",
    "2026-12b": "658c260d380bccd23cf2fb2ce14d9847fea0972f593180780987591142597fc4",
    "2026-12c": "93674fd755d2c13095edfcb309051b28fb59d86c5dc12a796bc33b493c51334f",
    "2026-12d": "dbe872cd67c1d4fd51ebdd9345fa02db25b64568d2af304995fd48dde47f8154",
}


@dataclass(frozen=True)
class BlindCase:
    id: str
    language: str
    family: str
    request: str
    proposed_action: str
    reply: str
    signature: str
    expect: str | None
    conditions: tuple[str, ...]


# The sets name an approval with conditions "conditional"; 2026-12d names it by the
# reading's kind. Mapped here, so that the file stays as it was committed.
_EXPECT = {"conditional_approval": "conditional"}


def load(name: str = "2026-12") -> list[BlindCase]:
    data = json.loads(SETS[name].read_text(encoding="utf-8"))
    return [
        BlindCase(
            case["id"],
            case["language"],
            case["family"],
            case["ask"]["text"],
            case["ask"]["proposed_action"],
            case["reply"],
            case["signature"],
            _EXPECT.get(case["expect"], case["expect"]),
            tuple(case.get("conditions") or ()),
        )
        for case in data["cases"]
    ]
