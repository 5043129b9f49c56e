"""``hfa backup`` and ``hfa restore``: what a restore refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine

from gateway.services import build_services
from tests.clienv import run
from tests.conftest import make_config


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
