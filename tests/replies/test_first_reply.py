"""The word tables load with the first reply read, and that first reply is read right.

``gateway.replies`` leaves the tables of every language (and the language detector)
unread until a reply is read, so that the listeners' process and an idle worker never
hold them. Each language gets a process of its own here, in which its reply is the
first one read: loading on first use must not change a single reading.
"""

from __future__ import annotations

import json
import subprocess
import sys

from gateway.replies import DecisionKind
from tests.replies.lexicon_cases import CASES

# Forks once per language after importing the package as the gateway does; each child
# reads its language's replies, the first of them being the first reply it ever reads.
PROBE = """
import json, os, sys
from gateway.replies import Ask, decide_answer, read_decision
from tests.replies.lexicon_cases import CASES

TABLES = ("gateway.replies.lexicon", "gateway.replies.decision", "py3langid")
before = sorted(m for m in sys.modules if m.startswith(TABLES))
NDA = Ask(
    "May I sign the mutual NDA with Helix Bio AG as sent? It is their template; "
    "governing law Swiss, term 3 years.",
    "Sign the NDA via DocuSign as Acme's authorised signatory and return it to bd@helix-bio.test.",
)
readings = {}
for language, categories in CASES.items():
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        kinds = {
            category: [str(decide_answer(read_decision(t, None), NDA).kind) for t in texts[:3]]
            for category, texts in categories.items()
        }
        loaded = sorted(m for m in sys.modules if m.startswith(TABLES))
        with os.fdopen(write_end, "w") as out:
            json.dump({"kinds": kinds, "loaded": loaded}, out)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        readings[language] = json.load(pipe)
    os.waitpid(pid, 0)
print(json.dumps({"before": before, "readings": readings}))
"""
_EXPECTED = {
    "approval": str(DecisionKind.APPROVAL),
    "rejection": str(DecisionKind.REJECTION),
    "question": str(DecisionKind.QUESTION),
}


def test_the_first_reply_in_each_language_is_read_right_with_the_tables_loaded_then() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # Importing the package loaded no table: the first reply did.
    assert result["before"] == []
    readings = result["readings"]
    assert sorted(readings) == sorted(CASES) and len(readings) == 17
    for language, reading in readings.items():
        assert "gateway.replies.lexicon" in reading["loaded"], language
        for category, kinds in reading["kinds"].items():
            if category == "negation":
                assert str(DecisionKind.APPROVAL) not in kinds, (language, kinds)
            else:
                assert kinds == [_EXPECTED[category]] * len(kinds), (language, category, kinds)
