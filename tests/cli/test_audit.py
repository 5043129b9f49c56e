"""The audit log's name never follows the HTTP settings, and its key cannot drift.

An operator runs ``hfa`` from a shell that may not carry the server's HTTP settings,
or changes the public URL later: ``hfa audit verify`` and ``hfa evidence export`` must
give the same answer either way. A log begun under a name taken from its public URL
(as earlier releases named it) keeps that name and keeps verifying. A worker started
with another audit signing key is refused before it writes anything.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import func, select

from gateway.app import Gateway
from gateway.errors import ConfigError
from gateway.services import Services, build_services
from gateway.settings.config import Config
from gateway.store import audit_origin, signing
from gateway.store import checkpoint as notes
from gateway.store.models import AuditCheckpoint, AuditEntry, Heartbeat
from gateway.store.sequencer import Sequencer
from tests import auditkit
from tests.clienv import run, use_settings
from tests.conftest import Running, make_config

# What each variant of the shell says about HTTP; none of it may change an answer.
HTTP_VARIANTS: list[dict[str, str]] = [
    {},
    {"http_bind": "127.0.0.1:8680"},
    {"public_url": "https://hfa.example.com"},
    {"public_url": "http://10.1.2.3:9000/gw", "http_bind": "0.0.0.0:9000"},
]
OLD_NAME = "127.0.0.1:8680/audit"
NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


def _base(config: Config) -> dict[str, str]:
    return {
        "data_dir": str(config.data_dir),
        "database_url": config.database_url,
        "secret_keys": config.raw["secret_keys"],
    }


def _origins(services: Services) -> list[str]:
    with services.db.read_only() as session:
        rows = session.scalars(select(AuditCheckpoint.note).order_by(AuditCheckpoint.tree_size))
        return [audit_origin.origin_of(note) for note in rows]


def _verify_everywhere(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], base: dict[str, str]
) -> set[tuple[int, int, str, str]]:
    """``hfa audit verify`` and ``hfa audit key`` under every HTTP variant: their answers."""
    answers = set()
    for variant in HTTP_VARIANTS:
        use_settings(monkeypatch, base | variant)
        code, out, err = run(capsys, "audit", "verify", "--no-mirror", "--json")
        verdict = json.loads(out)
        assert code == 0 and verdict["ok"], (variant, out, err)
        key_code, key, _ = run(capsys, "audit", "key")
        assert key_code == 0
        answers.add((verdict["tree_size"], verdict["checkpoints"], verdict["root"], key.strip()))
    return answers


def _sign_entries(services: Services, keys: signing.LogKeys, count: int) -> None:
    with services.db.transaction() as session:
        for i in range(count):
            services.audit.append(session, "test.entry", at=NOW, details={"i": i})
    sequencer = Sequencer(services.db, keys, None, macs=services.audit.macs)
    try:
        assert sequencer.lead()
        sequencer.step(NOW)
    finally:
        sequencer.let_go()


async def test_verify_and_export_agree_whatever_the_http_settings_say(
    running: Running,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    filed = await running.file()
    services = running.services
    auditkit.settle(services)
    published = (await running.http.get("/audit/key")).text.strip()
    base = _base(services.config)
    answers = _verify_everywhere(monkeypatch, capsys, base)
    assert len(answers) == 1, answers
    ((_size, _count, _root, key),) = answers
    # The key the operator hands out is the one served, and it names the log as it is named.
    assert published.splitlines()[0] == key
    assert key.startswith(signing.DEFAULT_ORIGIN_PREFIX)
    assert set(_origins(services)) == {key.partition("+")[0]}
    for number, variant in enumerate(HTTP_VARIANTS):
        use_settings(monkeypatch, base | variant)
        bundle = tmp_path / f"bundle-{number}.zip"
        code, out, err = run(
            capsys, "evidence", "export", filed["reference"], "-o", str(bundle), "--no-pdf"
        )
        assert code == 0, (variant, out, err)
        code, out, err = run(capsys, "evidence", "verify", str(bundle))
        assert code == 0 and "\nOK: " in "\n" + out, (variant, out, err)
    # The exports' own entries were signed by the CLI, under the log's name too.
    auditkit.settle(services)
    assert set(_origins(services)) == {key.partition("+")[0]}


def test_a_log_named_after_its_old_public_url_keeps_its_name_and_verifies(
    services: Services,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    keys = signing.load_keys(services.config.raw, services.config.data_dir)
    # What an earlier release signed: the origin and key name taken from HFA_HTTP_BIND.
    _sign_entries(services, keys.named(OLD_NAME), 3)
    base = _base(services.config)
    use_settings(monkeypatch, base | {"http_bind": "127.0.0.1:8680"})
    anchor = tmp_path / "anchor.txt"
    assert run(capsys, "audit", "anchor", "--out", str(anchor))[0] == 0
    # After the upgrade: the sequencer keeps signing under the log's name, whatever its
    # own settings would have called it.
    _sign_entries(services, signing.load_keys(services.config.raw, services.config.data_dir), 2)
    assert set(_origins(services)) == {OLD_NAME}
    answers = _verify_everywhere(monkeypatch, capsys, base)
    assert {key.partition("+")[0] for *_, key in answers} == {OLD_NAME}
    for variant in HTTP_VARIANTS:
        use_settings(monkeypatch, base | variant)
        code, out, err = run(capsys, "audit", "verify", "--no-mirror", "--checkpoint", str(anchor))
        assert code == 0, (variant, out, err)


def test_a_configured_origin_renames_the_log_and_earlier_checkpoints_still_verify(
    services: Services, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = services.config
    _sign_entries(services, signing.load_keys(config.raw, config.data_dir), 2)
    renamed = config.with_overrides(audit_log_origin="hfa.example.com/audit")
    keys = signing.load_keys(renamed.raw, renamed.data_dir)
    _sign_entries(services, keys, 2)
    origins = _origins(services)
    assert origins[-1] == "hfa.example.com/audit" and origins[0] != origins[-1]
    base = _base(config) | {"audit_log_origin": "hfa.example.com/audit"}
    use_settings(monkeypatch, base)
    code, out, _ = run(capsys, "audit", "verify", "--no-mirror")
    assert code == 0, out
    code, key, _ = run(capsys, "audit", "key")
    assert key.startswith("hfa.example.com/audit+")
    notes.verify(_newest(services), [notes.parse_verifier_key(key)])


@pytest.mark.parametrize("origin", ["has space/audit", "a+b.example/audit", "tab\there"])
def test_an_origin_that_cannot_name_a_key_is_refused(tmp_path: Path, origin: str) -> None:
    config = make_config(tmp_path, audit_log_origin=origin)
    with pytest.raises(ConfigError, match="HFA_AUDIT_LOG_ORIGIN: expected a name without"):
        signing.load_keys(config.raw, config.data_dir)


def _newest(services: Services) -> str:
    with services.db.read_only() as session:
        note = audit_origin.newest_note(session)
    assert note is not None
    return note


def _written(services: Services) -> tuple[int, int]:
    with services.db.read_only() as session:
        entries = session.scalar(select(func.count()).select_from(AuditEntry)) or 0
        beats = session.scalar(select(func.count()).select_from(Heartbeat)) or 0
    return int(entries), int(beats)


async def test_a_worker_with_another_signing_key_refuses_to_start(
    services: Services, tmp_path: Path
) -> None:
    config = services.config
    _sign_entries(services, signing.load_keys(config.raw, config.data_dir), 1)
    before = _written(services)
    other = signing.encode_key(Ed25519PrivateKey.generate())
    stranger = build_services(config.with_overrides(audit_signing_key=other), migrate=False)
    try:
        with pytest.raises(ConfigError) as refused:
            await Gateway(stranger, roles=("worker",)).start()
    finally:
        stranger.close()
    message = str(refused.value)
    assert message.startswith("HFA_AUDIT_SIGNING_KEY does not hold the key that signed")
    assert message.count(". ") == 0 and "\n" not in message  # one sentence
    assert _written(services) == before  # refused before a heartbeat or an entry
    # A worker on another host, with no key at all, is refused rather than given a new one.
    elsewhere = tmp_path / "elsewhere"
    bare = build_services(make_config(elsewhere, database_url=config.database_url), migrate=False)
    try:
        with pytest.raises(ConfigError, match="this process has no audit signing key"):
            await Gateway(bare, roles=("worker",)).start()
    finally:
        bare.close()
    assert not (elsewhere / signing.KEY_FILE).exists()
    # The log's own key, with a newer one after it, starts (the newest signs from then on).
    newer = signing.encode_key(Ed25519PrivateKey.generate())
    ours = signing.encode_key(signing.load_keys(config.raw, config.data_dir).keys[-1])
    rotated = build_services(
        config.with_overrides(audit_signing_key=f"{ours},{newer}"), migrate=False
    )
    gateway = Gateway(rotated, roles=("worker",))
    try:
        await gateway.start()
    finally:
        await gateway.stop()
        rotated.close()


def test_the_install_guide_and_the_container_secrets_give_every_worker_the_audit_key() -> None:
    root = Path(__file__).resolve().parents[2]
    install = (root / "deploy" / "INSTALL.md").read_text()
    assert 'print("HFA_AUDIT_SIGNING_KEY=ed25519:"' in install
    example = (root / "deploy" / "container" / "secrets.env.example").read_text()
    assert "\nHFA_AUDIT_SIGNING_KEY=\n" in example
    # The generated value is one the gateway reads.
    seed = "ed25519:" + base64.b64encode(bytes(32)).decode()
    signing.decode_key(seed, "HFA_AUDIT_SIGNING_KEY")


def test_verify_with_another_key_says_so_rather_than_altered(
    services: Services, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = services.config
    _sign_entries(services, signing.load_keys(config.raw, config.data_dir), 2)
    other = signing.encode_key(Ed25519PrivateKey.generate())
    use_settings(monkeypatch, _base(config) | {"audit_signing_key": other})
    code, out, _ = run(capsys, "audit", "verify", "--no-mirror", "--json")
    verdict = json.loads(out)
    assert code == 1 and verdict["problems"][0]["kind"] == "signed by an unknown key", out
    assert "not the log's" in verdict["problems"][0]["detail"]


async def test_export_with_another_key_refuses_and_writes_no_bundle(
    running: Running,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    filed = await running.file()
    auditkit.settle(running.services)
    other = signing.encode_key(Ed25519PrivateKey.generate())
    use_settings(monkeypatch, _base(running.services.config) | {"audit_signing_key": other})
    bundle = tmp_path / "bundle.zip"
    code, _out, err = run(
        capsys, "evidence", "export", filed["reference"], "-o", str(bundle), "--no-pdf"
    )
    assert code == 2 and "does not hold the key that signed" in err, err
    assert not bundle.exists()


def test_the_published_keys_keep_the_older_ones_and_the_signer_comes_first(
    services: Services,
) -> None:
    config = services.config
    first = signing.load_keys(config.raw, config.data_dir)
    _sign_entries(services, first, 1)
    newer = signing.LogKeys(first.origin, (*first.keys, Ed25519PrivateKey.generate()))
    _sign_entries(services, newer, 1)
    with services.db.read_only() as session:
        published = audit_origin.published_verifier_keys(session)
    assert published == list(reversed(newer.named(_origins(services)[-1]).verifier_keys()))
    # A process that holds only the older key (and signed last) drops none of them.
    _sign_entries(services, first, 1)
    with services.db.read_only() as session:
        again = audit_origin.published_verifier_keys(session)
    assert sorted(again) == sorted(published) and again[0] == published[1]
