"""audit.jsonl rotates for real: renamed or copied and truncated, it starts again small,
and a mirror that starts late (its oldest lines rotated away) still verifies."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gateway.services import Services
from gateway.store import signing
from gateway.store.sequencer import Sequencer
from tests import auditkit
from tests.clienv import run, use_settings

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


def _grow(services: Services, count: int) -> None:
    with services.db.transaction() as session:
        for i in range(count):
            services.audit.append(session, "test.entry", at=NOW, details={"i": i, "pad": "x" * 200})
    auditkit.settle(services)


def _leaves(path: Path) -> list[int]:
    return [json.loads(line)["leaf_index"] for line in path.read_text().splitlines()]


def _verify(
    services: Services, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, object], str]:
    config = services.config
    use_settings(
        monkeypatch,
        {
            "data_dir": str(config.data_dir),
            "database_url": config.database_url,
            "secret_keys": config.raw["secret_keys"],
        },
    )
    code, out, err = run(capsys, "audit", "verify", "--json")
    return code, json.loads(out), err


@pytest.mark.parametrize("how", ["copytruncate", "rename"])
def test_a_rotated_mirror_frees_its_space_and_verify_stays_ok(
    services: Services,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    how: str,
) -> None:
    path = services.audit.mirror
    assert path is not None
    _grow(services, 40)
    size_before, old = path.stat().st_size, _leaves(path)
    rotated = path.with_name("audit.jsonl.1")
    if how == "copytruncate":
        shutil.copyfile(path, rotated)
        with path.open("r+b") as fh:
            fh.truncate(0)
    else:
        path.rename(rotated)
    # A worker that starts now (a fresh leader) leaves the empty file for the next batch.
    sequencer = Sequencer(
        services.db,
        signing.load_keys(services.config.raw, services.config.data_dir),
        path,
        macs=services.audit.macs,
    )
    try:
        assert sequencer.lead()
        sequencer.step(NOW)
    finally:
        sequencer.let_go()
    assert not path.exists() or path.stat().st_size == 0
    _grow(services, 3)
    new = _leaves(path)
    assert new == [old[-1] + 1, old[-1] + 2, old[-1] + 3]
    assert path.stat().st_size < size_before / 5
    code, verdict, _ = _verify(services, monkeypatch, capsys)
    assert code == 0 and verdict["ok"], verdict
    assert verdict["mirror_start"] == new[0]
    code, out, err = run(capsys, "audit", "verify")
    assert code == 0 and out.startswith("OK") and f"starts at leaf {new[0]}" in err, out + err
    # The rotated file is the older lines, each as the database holds it.
    assert _leaves(rotated) == old


def test_keeping_only_the_newest_lines_is_no_tamper_alarm(
    services: Services, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = services.audit.mirror
    assert path is not None
    _grow(services, 20)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[-5:]) + "\n")
    code, verdict, _ = _verify(services, monkeypatch, capsys)
    assert code == 0 and verdict["ok"], verdict
    # A line removed after the first kept one is still a removal.
    kept = path.read_text().splitlines()
    path.write_text("\n".join([kept[0], *kept[2:]]) + "\n")
    code, verdict, _ = _verify(services, monkeypatch, capsys)
    assert code == 1
    problems = verdict["problems"]
    assert isinstance(problems, list) and problems[0]["kind"] == "removed"
