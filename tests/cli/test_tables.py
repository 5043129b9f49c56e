"""The exit codes every command returns, as the README lists them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clienv import run

ROOT = Path(__file__).resolve().parents[2]


def test_exit_codes_are_the_readmes(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("| code | meaning |") :].split("\n\n")[0]
    documented = {int(row.split("|")[1]) for row in table.splitlines()[2:]}
    assert documented == {0, 1, 2, 3, 130, 141}
    assert run(capsys, "requests", "list")[0] == 2  # no database
    assert run(capsys, "db", "upgrade")[0] == 0
    for argv in (
        ("requests", "show", "HFA-99999"),
        ("inbound", "show", "999"),
        ("outbox", "retry", "999"),
        ("keys", "revoke", "nobody"),
        ("mail", "show", "999"),
    ):
        code, _, err = run(capsys, *argv)
        assert code == 3, (argv, err)
        assert len(err.strip().splitlines()) == 1
    assert run(capsys, "health")[0] == 1  # no live process: the check failed
