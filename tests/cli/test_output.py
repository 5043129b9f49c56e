"""Operator mistakes get one sentence that says what to fix, and never a new, empty gateway."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect

from tests.clienv import run

ROOT = Path(__file__).resolve().parents[2]
NO_GATEWAY = "no gateway database at"


NEEDS_A_GATEWAY = [
    ("keys", "create", "research-agent"),
    ("keys", "list"),
    ("keys", "rotate"),
    ("keys", "revoke", "research-agent"),
    ("keys", "open"),
    ("mcp",),
    ("requests", "list"),
    ("export",),
    ("inbound", "list"),
    ("outbox", "list"),
    ("health",),
]


@pytest.mark.parametrize("argv", NEEDS_A_GATEWAY, ids=" ".join)
def test_a_command_that_needs_a_gateway_refuses_where_there_is_none(
    env: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    said = out + err
    assert NO_GATEWAY in said and "hfa db upgrade" in said and "hfa serve" in said
    assert len(said.strip().splitlines()) == 1
    # Nothing was made: no database, no key file, no audit mirror.
    assert not env.exists() or list(env.iterdir()) == []


def test_only_serve_and_db_upgrade_make_a_database(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "db", "upgrade")[0] == 0
    code, out, _ = run(capsys, "keys", "create", "research-agent")
    assert code == 0 and out.startswith("hfak_")
    assert run(capsys, "keys", "revoke", "nobody-by-this-name")[0] == 3


@pytest.mark.postgres
def test_an_empty_postgres_database_is_refused_in_one_sentence(
    env: Path,
    postgres_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HFA_DATABASE_URL", postgres_url)
    for argv in (("requests", "list"), ("health",), ("keys", "list"), ("audit", "verify")):
        code, out, err = run(capsys, *argv)
        assert code == 2, (argv, out, err)
        assert NO_GATEWAY in out + err and "Traceback" not in out + err
        assert "ProgrammingError" not in out + err
    # Looking created nothing: pg_restore into it still finds it empty.
    engine = create_engine(postgres_url)
    try:
        assert inspect(engine).get_table_names() == []
    finally:
        engine.dispose()


def test_a_database_missing_a_table_is_one_sentence_not_a_traceback(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "db", "upgrade")[0] == 0
    with sqlite3.connect(env / "gateway.db") as db:
        db.execute("DROP TABLE requests")
    for argv, exit_code in ((("requests", "show", "HFA-00001"), 1), (("requests", "list"), 2)):
        code, _, err = run(capsys, *argv)
        assert code == exit_code, (argv, err)
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
        assert "hfa db status" in err


def _hfa_into_a_closed_pipe(data_dir: Path, *argv: str) -> subprocess.CompletedProcess[bytes]:
    """Run hfa with its stdout a pipe whose reader is already gone (``| head`` that ended)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env |= {"HFA_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "gateway", *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=env,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)


def test_a_closed_pipe_ends_quietly(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "db", "upgrade")[0] == 0
    for argv in (("settings",), ("health",)):
        done = _hfa_into_a_closed_pipe(env, *argv)
        assert done.stderr.decode() == "", argv
        assert done.returncode == 141


def test_json_output_escapes_hidden_characters_and_keeps_the_value(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gateway.cli.terminal import json_text

    value = {"agent_name": "bot\u202egnp\u200b\x1b[2J"}
    text = json_text(value)
    assert "\u202e" not in text and "\x1b" not in text and "\u200b" not in text
    assert json.loads(text) == value
