"""Operator mistakes get one sentence that says what to fix, and never a new, empty gateway."""

from __future__ import annotations

import ast
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect

from gateway.cli import main
from gateway.cli.inbound import OUTCOMES
from gateway.services import build_services
from tests.clienv import clear_settings, run
from tests.conftest import LAWYER, REPLY_DOMAIN, make_config

ROOT = Path(__file__).resolve().parents[2]
NO_GATEWAY = "no gateway database at"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Settings of a gateway whose data directory holds nothing yet."""
    clear_settings(monkeypatch)
    data_dir = tmp_path / "var"
    monkeypatch.setenv("HFA_DATA_DIR", str(data_dir))
    monkeypatch.setenv("HFA_LAWYERS", LAWYER)
    monkeypatch.setenv("HFA_REPLY_DOMAIN", REPLY_DOMAIN)
    return data_dir


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


@pytest.mark.postgres
def test_restoring_files_before_the_database_is_refused(
    tmp_path: Path,
    postgres_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = make_config(tmp_path / "source", database_url=postgres_url)
    build_services(source).close()
    for name, value in source.raw.items():
        monkeypatch.setenv(f"HFA_{name.upper()}", value)
    assert run(capsys, "backup", str(tmp_path / "bk"))[0] == 0
    # A second, empty database: the dump was not loaded into it yet.
    empty_url = postgres_url + "_empty"
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{empty_url.rpartition("/")[2]}"')
    try:
        monkeypatch.setenv("HFA_DATA_DIR", str(tmp_path / "restored"))
        monkeypatch.setenv("HFA_DATABASE_URL", empty_url)
        code, _, err = run(capsys, "restore", str(tmp_path / "bk"))
        assert code == 2
        assert "pg_restore" in err and len(err.strip().splitlines()) == 1
        assert not (tmp_path / "restored").exists()
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(
                f'DROP DATABASE IF EXISTS "{empty_url.rpartition("/")[2]}" WITH (FORCE)'
            )
        admin.dispose()


def test_an_unknown_outcome_is_refused_naming_the_valid_ones(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["inbound", "list", "--outcome", "bogus"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "bogus" in err and "unverified_sender" in err


def test_the_outcome_list_is_every_outcome_the_code_gives() -> None:
    given: set[str] = set()
    for path in (ROOT / "gateway").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "Outcome"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                given.add(str(node.args[0].value))
    assert given and given <= set(OUTCOMES)


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
