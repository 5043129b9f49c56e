"""``hfa backup`` of a running gateway, restored into a fresh data directory, reads back the same."""

from __future__ import annotations

import asyncio
import json
import stat
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from gateway.app import Gateway
from gateway.services import build_services
from gateway.settings.config import Config
from gateway.store import audit_check
from tests import auditkit
from tests.clienv import hfa, use_settings
from tests.conftest import (
    Running,
    _create_postgres_database,
    _drop_postgres_database,
)
from tests.mailkit import reply_to, send


async def answered_request(running: Running) -> dict[str, Any]:
    filed = await running.file(request="May we extend the NDA with ACME by a year?")
    (email,) = await running.sink.wait_for(1)
    await send(reply_to(email, "Approved, for one year only.\n\nDana"), running.smtp_port)
    await running.wait_status(filed, lambda s: s["human_has_replied"])
    await running.sink.wait_for(2)  # the receipt: its audit entries are in the backup too
    return filed


async def keep_filing(running: Running, count: int) -> None:
    for _ in range(count):
        await running.file(request="Another question while the backup runs.")
        await asyncio.sleep(0.05)


async def read_thread(config: Config, filed: dict[str, Any]) -> dict[str, Any]:
    services = build_services(config)
    try:
        async with (
            Gateway(services, roles=("http",)) as gateway,
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.http_port}") as client,
        ):
            response = await client.get(
                f"/v1/requests/{filed['reference']}",
                headers={"Authorization": f"Bearer {filed['access_token']}"},
            )
        assert response.status_code == 200, response.text
        thread: dict[str, Any] = response.json()
        return thread
    finally:
        services.close()


async def test_backup_restore_verify_and_the_thread_reads_the_same(
    running: Running,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    filed = await answered_request(running)
    before = await running.status(filed)
    config = running.services.config
    backup = tmp_path / "backup"

    # Online: agents keep filing while the copy is taken, in another thread.
    use_settings(monkeypatch, config.raw)
    filing = asyncio.create_task(keep_filing(running, 30))
    code, out = await asyncio.to_thread(hfa, capsys, "backup", str(backup))
    await filing
    assert code == 0, out
    assert stat.S_IMODE(backup.stat().st_mode) == 0o700
    manifest = json.loads((backup / "backup.json").read_text())
    # The mirror is cut exactly at the checkpoint: no entry more, no entry less.
    assert manifest["mirror_lines"] == manifest["audit_tree_size"] > 0
    live_lines = (await asyncio.to_thread(auditkit.mirror_text, running.services)).count("\n")
    with running.services.db.read_only() as session:
        live_size = audit_check.tree_size(session)
    # Entries written after the snapshot are in the live log and mirror, and not in the copy.
    assert live_size > manifest["audit_tree_size"] and live_lines > manifest["mirror_lines"]

    # A fresh data directory (and, on PostgreSQL, a fresh database loaded from the dump).
    fresh = tmp_path / "restored"
    overrides = {"data_dir": str(fresh)}
    new_database = ""
    if manifest["database"] == "postgresql":
        new_database = _create_postgres_database()
        overrides["database_url"] = new_database
    try:
        use_settings(monkeypatch, dict(config.raw) | overrides)
        if new_database:
            # The README's order: the dump into the empty database first, then the files.
            pg_restore(backup / "gateway.pgdump", new_database)
        code, out = hfa(capsys, "restore", str(backup))
        assert code == 0, out
        for name in manifest["files"]:
            if name != "gateway.pgdump":
                assert stat.S_IMODE((fresh / name).stat().st_mode) == 0o600, name
        saved = str(backup / "audit_checkpoint.txt")
        code, out = hfa(capsys, "audit", "verify", "--checkpoint", saved)
        assert code == 0 and out.startswith("OK:") and "mirror lines" in out, out

        restored = config.with_overrides(**overrides)
        after = await read_thread(restored, filed)
        assert after == before
        # The restored gateway writes on (gateway.started/stopped): the log still holds.
        code, out = hfa(capsys, "audit", "verify", "--checkpoint", saved)
        assert code == 0, out
    finally:
        if new_database:
            _drop_postgres_database(new_database)


def pg_restore(dump: Path, url: str) -> None:
    libpq = url.replace("postgresql+psycopg://", "postgresql://")
    subprocess.run(
        ["pg_restore", "--no-owner", f"--dbname={libpq}", str(dump)],
        check=True,
        capture_output=True,
        timeout=120,
    )


async def test_restore_refuses_a_used_data_dir_and_a_changed_backup(
    running: Running,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await running.file()
    config = running.services.config
    backup = tmp_path / "backup"
    use_settings(monkeypatch, config.raw)
    await asyncio.to_thread(auditkit.settle, running.services)
    assert hfa(capsys, "backup", str(backup))[0] == 0
    code, out = hfa(capsys, "backup", str(backup))
    assert code == 2 and "not empty" in out

    # Into the live data directory: refused, nothing overwritten.
    code, out = hfa(capsys, "restore", str(backup))
    assert code == 2 and "restore into a fresh one" in out

    with (backup / "audit.jsonl").open("a") as fh:
        fh.write('{"seq": 999999}\n')
    use_settings(
        monkeypatch, dict(config.raw) | {"data_dir": str(tmp_path / "fresh"), "database_url": ""}
    )
    code, out = hfa(capsys, "restore", str(backup))
    assert code == 1 and "changed since the backup" in out
    assert not (tmp_path / "fresh").exists()
