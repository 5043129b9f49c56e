"""The blind set is the one that was committed before it was first run."""

from __future__ import annotations

import hashlib

from tests.replies.blind import CHECKSUMS, SETS, load


def test_each_blind_set_is_as_it_was_committed() -> None:
    for name, path in SETS.items():
        assert hashlib.sha256(path.read_bytes()).hexdigest() == CHECKSUMS[name], name


def test_the_set_covers_every_table_language_with_300_cases_or_more() -> None:
    from gateway.replies.lexicon import LANGUAGES

    for name in SETS:
        cases = load(name)
        assert len(cases) >= 300
        assert {case.language for case in cases} == set(LANGUAGES)
