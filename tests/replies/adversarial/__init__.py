"""Replies built to trap the decision reader, the way lawyers write them.

Each family is one way typed text was seen to approve what the lawyer never
approved (issue families 1-7), plus natural answers per language that a
careful reader has no doubt about. Families 1-6 and the natural answers are
written per language (one module each, ``en.py`` ... ``fi.py``); family 7
(one language's words deciding another's text) is ``cross.py``; ``extras.py``
holds asks and quick-reply forms that are the same in every language, and
``held_out.py`` replies the tables were not tuned on.

The same trials drive ``bench/decisions.py`` (false approvals, natural-answer
counts per language) and the table tests in ``test_adversarial.py``.
"""

from __future__ import annotations

from importlib import import_module

from tests.replies.adversarial.cross import CROSS_LANGUAGE
from tests.replies.adversarial.extras import QUICK_NOTES, YES_NO_ASK
from tests.replies.adversarial.held_out import HELD_OUT
from tests.replies.adversarial.trial import (
    APPROVAL,
    CONDITIONAL,
    DECLINE,
    DPA,
    HOLD,
    NDA,
    NONE,
    PAY,
    REJECTION,
    SEND,
    Language,
    Trial,
)

CODES = ("en", "de", "fr", "es", "it", "nl", "pl", "pt", "ja", "zh",
         "sv", "da", "nb", "cs", "ru", "uk", "fi")  # fmt: skip
LANGUAGES: dict[str, Language] = {
    code: import_module(f"tests.replies.adversarial.{code}").LANGUAGE for code in CODES
}

FAMILIES: dict[str, list[Trial]] = {
    name: [trial for language in LANGUAGES.values() for trial in language.families()[name]]
    for name in (
        "yes_continuation",
        "go_ahead_first",
        "holdback",
        "yes_no_ask",
        "quick_notes",
        "self_correction",
    )
}
FAMILIES["yes_no_ask"] += YES_NO_ASK
FAMILIES["quick_notes"] += QUICK_NOTES
FAMILIES["cross_language"] = CROSS_LANGUAGE
NATURAL: list[Trial] = [t for language in LANGUAGES.values() for t in language.natural_trials()]
ALL_TRIALS: list[Trial] = [trial for trials in FAMILIES.values() for trial in trials] + NATURAL

__all__ = [
    "ALL_TRIALS", "APPROVAL", "CONDITIONAL", "DECLINE", "DPA", "FAMILIES", "HELD_OUT", "HOLD",
    "LANGUAGES", "NATURAL", "NDA", "NONE", "PAY", "REJECTION", "SEND", "Trial",
]  # fmt: skip
