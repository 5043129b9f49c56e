"""Witnesses on loopback cosign the audit log as it grows (C2SP tlog-witness, tlog-cosignature).

Two witnesses run the witness role's own HTTP app on real sockets. The gateway sends
each new checkpoint with a consistency proof from the size each witness cosigned last;
a witness that is told an old size it does not hold answers 409 and the gateway proves
again from the witness's size; a witness that is down delays no filing and no status
read, and ``hfa health`` and the metrics name it.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import uvicorn
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gateway.evidence import verifier
from gateway.http.witness import witness_app
from gateway.outbound import witnesses as client
from gateway.services import Services
from gateway.settings.config import Config
from gateway.store import audit_check, audit_origin, cosign, signing
from gateway.store import checkpoint as notes
from gateway.store.witness import Answer, Witness
from tests.clienv import run, use_settings
from tests.conftest import Running, SmtpSink, start_running, stop_running
from tests.evidence.kit import all_sent, export_of


@dataclass
class Served:
    witness: Witness
    port: int
    server: uvicorn.Server
    task: asyncio.Task[None]
    answers: list[tuple[int, str]] = field(default_factory=list)

    @property
    def vkey(self) -> str:
        return self.witness.vkey()

    async def stop(self) -> None:
        self.server.should_exit = True
        await asyncio.wait_for(self.task, 10)


class Recording(Witness):
    """The witness role's own checks, with each answer and the old size it was asked from."""

    def __init__(self, *args: object, seen: list[tuple[int, str]]) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.seen = seen

    def add_checkpoint(self, body: str, now: int) -> Answer:
        answer = super().add_checkpoint(body, now)
        self.seen.append((answer.status, body.partition("\n")[0]))
        return answer


async def _serve(tmp_path: Path, name: str, log_vkey: str) -> Served:
    log_name, public = notes.parse_verifier_key(log_vkey)
    seen: list[tuple[int, str]] = []
    witness = Recording(
        f"witness.test/{name}",
        Ed25519PrivateKey.generate(),
        {log_name: [public]},
        tmp_path / f"{name}.json",
        seen=seen,
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(
        uvicorn.Config(witness_app(witness), log_level="warning", lifespan="off")
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    return Served(witness, sock.getsockname()[1], server, task, seen)


@pytest.fixture
def log_keys(config: Config) -> Iterator[signing.LogKeys]:
    yield signing.load_keys(config.raw, config.data_dir)


@pytest.fixture
async def witnessed(
    config: Config, sink: SmtpSink, tmp_path: Path, log_keys: signing.LogKeys
) -> AsyncIterator[tuple[Running, list[Served]]]:
    vkey = log_keys.verifier_keys()[-1]
    served = [await _serve(tmp_path, name, vkey) for name in ("w1", "w2")]
    setting = ",".join(f"{s.vkey} http://127.0.0.1:{s.port}" for s in served)
    running = await start_running(
        config.with_overrides(audit_witnesses=setting, audit_witness_seconds="0.1"), sink
    )
    yield running, served
    await stop_running(running)
    for s in served:
        if not s.task.done():
            await s.stop()


async def _cosigned(
    running: Running, served: list[Served] | list[str], at_least: int
) -> notes.Checkpoint:
    """The served checkpoint, once every witness cosigned one of at least ``at_least``."""
    cosigners = [cosign.parse_vkey(s if isinstance(s, str) else s.vkey) for s in served]
    for _ in range(300):
        # The leading sequencer publishes the key with its first batch.
        key = await running.http.get("/audit/key")
        response = await running.http.get("/audit/checkpoint")
        if key.status_code == 200 and response.status_code == 200:
            vkey = key.text.split()[0]
            checkpoint = notes.verify(response.text, [notes.parse_verifier_key(vkey)])
            found = cosign.cosignatures(response.text, cosigners)
            if checkpoint.size >= at_least and len(found) == len(served):
                return checkpoint
        await asyncio.sleep(0.05)
    raise AssertionError(f"no checkpoint of {at_least} entries cosigned by every witness")


async def test_witnesses_cosign_as_the_log_grows_and_a_409_is_proved_again(
    witnessed: tuple[Running, list[Served]], tmp_path: Path
) -> None:
    running, served = witnessed
    await running.file()
    first = await _cosigned(running, served, 1)
    for _ in range(3):
        await running.file()
    second = await _cosigned(running, served, first.size + 1)
    assert second.size > first.size
    # The second round proved consistency from the size each witness cosigned before.
    for s in served:
        assert (200, "old 0") in s.answers
        assert any(status == 200 and old not in ("old 0",) for status, old in s.answers), s.answers
        assert all(status in (200, 409) for status, _old in s.answers), s.answers
    # A witness ahead of what the gateway last heard from it answers 409 with its size,
    # and the gateway proves again from there (a third witness, fed here only).
    third = await _serve(tmp_path, "w3", (await running.http.get("/audit/key")).text.split()[0])
    target = client.Target(cosign.parse_vkey(third.vkey), f"http://127.0.0.1:{third.port}")

    try:
        async with httpx.AsyncClient(timeout=10) as http:
            services = running.services
            first_note = await services.db.run(_newest_note, services)
            size, line, error = await client.submit(services, http, target, first_note, 0)
            assert line is not None and error is None
            await running.file()
            await _cosigned(running, served, size + 1)
            later = await services.db.run(_newest_note, services)
            newer, line, error = await client.submit(services, http, target, later, 0)
            assert line is not None and error is None and newer > size
    finally:
        await third.stop()
    assert third.answers == [(200, "old 0"), (409, "old 0"), (200, f"old {size}")]


def _newest_note(services: Services) -> str:
    with services.db.read_only() as session:
        note = audit_origin.newest_note(session)
    assert note is not None
    return note


async def _until_metrics(running: Running, line: str) -> str:
    for _ in range(300):
        metrics = (await running.http.get("/metrics")).text
        if line in metrics:
            return metrics
        await asyncio.sleep(0.05)
    raise AssertionError(f"never in the metrics: {line}")


async def test_a_witness_that_is_down_delays_nothing_and_is_reported(
    witnessed: tuple[Running, list[Served]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    running, served = witnessed
    await running.file()
    await _cosigned(running, served, 1)
    await served[1].stop()
    failing = f'hfa_audit_witness_failing{{witness="{served[1].witness.name}"}} 1'
    await _until_metrics(running, failing)
    stopped_at = (await running.http.get("/audit/checkpoint")).text.split("\n")[1]
    # Filing and reading go on as before; the log keeps growing and being signed.
    for _ in range(3):
        filed = await running.file()
        await running.status(filed)
    with running.services.db.read_only() as session:
        newest = audit_check.tree_size(session)
    assert newest > int(stopped_at)
    # The witness still up cosigns the newest; every witness must (quorum 0), so the
    # served checkpoint waits at the last one both cosigned.
    metrics = await _until_metrics(
        running, f'hfa_audit_witness_lag{{witness="{served[0].witness.name}"}} 0'
    )
    assert f'hfa_audit_witness_failing{{witness="{served[0].witness.name}"}} 0' in metrics
    served_now = (await running.http.get("/audit/checkpoint")).text
    assert served_now.split("\n")[1] == stopped_at
    config = running.services.config
    use_settings(
        monkeypatch,
        {
            "data_dir": str(config.data_dir),
            "database_url": config.database_url,
            "secret_keys": config.raw["secret_keys"],
        },
    )
    _code, out, _err = run(capsys, "health")
    assert f"witness {served[1].witness.name}: cosigned" in out and "FAILING" in out, out
    assert f"witness {served[0].witness.name}: cosigned" in out


@pytest.mark.parametrize(
    ("setting", "named"),
    [
        ("not-a-vkey http://127.0.0.1:1", "HFA_AUDIT_WITNESSES"),
        ("{vkey} ftp://x", "HFA_AUDIT_WITNESSES"),
    ],
)
def test_bad_witness_settings_name_the_setting(setting: str, named: str) -> None:
    vkey = cosign.Cosigner("w.test/a", Ed25519PrivateKey.generate().public_key()).vkey()
    with pytest.raises(Exception, match=named):
        client.policy_of({"audit_witnesses": setting.format(vkey=vkey)})
    with pytest.raises(Exception, match="HFA_AUDIT_WITNESS_QUORUM"):
        client.policy_of({"audit_witnesses": f"{vkey} http://x", "audit_witness_quorum": "2"})


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _witness_env(data_dir: Path, port: int, log_vkey: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HFA_")}
    env.update(
        HFA_DATA_DIR=str(data_dir),
        HFA_WITNESS_BIND=f"127.0.0.1:{port}",
        HFA_WITNESS_LOGS=log_vkey,
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
    )
    return env


async def test_hfa_witness_runs_on_its_own_and_cosigns_the_gateway(
    config: Config, sink: SmtpSink, tmp_path: Path, log_keys: signing.LogKeys
) -> None:
    port = _free_port()
    env = _witness_env(tmp_path / "witness", port, log_keys.verifier_keys()[-1])
    key = subprocess.run(
        [sys.executable, "-m", "gateway", "witness", "key"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert key.returncode == 0, key.stderr
    vkey = key.stdout.strip()
    assert vkey.startswith("hfa-witness/")
    process = subprocess.Popen(
        [sys.executable, "-m", "gateway", "witness"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(200):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            await asyncio.sleep(0.05)
        setting = f"{vkey} http://127.0.0.1:{port}"
        running = await start_running(
            config.with_overrides(audit_witnesses=setting, audit_witness_seconds="0.1"), sink
        )
        try:
            await running.file()
            await _cosigned(running, [vkey], 1)
        finally:
            await stop_running(running)
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_a_bundle_carries_the_cosigned_checkpoint_and_its_policy(
    witnessed: tuple[Running, list[Served]], tmp_path: Path
) -> None:
    running, served = witnessed
    filed = await running.file()
    await all_sent(running)
    cosigners = [cosign.parse_vkey(s.vkey) for s in served]
    out = tmp_path / "bundle.zip"
    # The export proves against the cosigned checkpoint once it covers the thread: wait
    # for the witnesses to catch up with the log (an entry may land meanwhile).
    for _ in range(20):
        for _ in range(300):
            with running.services.db.read_only() as session:
                newest = audit_check.tree_size(session)
            if (await _cosigned(running, served, 1)).size == newest:
                break
            await asyncio.sleep(0.05)
        done = await asyncio.to_thread(export_of, running, filed["reference"], out)
        files = dict(done.bundle.files)
        checkpoint = files["checkpoint.txt"].decode()
        if len(cosign.cosignatures(checkpoint, cosigners)) == 2:
            break
    assert len(cosign.cosignatures(checkpoint, cosigners)) == 2
    names = sorted(s.witness.name for s in served)
    policy = files["audit/policy.txt"].decode()
    assert f"group witnesses 2 {names[0]} {names[1]}" in policy and "quorum witnesses" in policy
    proof = next(v for k, v in files.items() if k.endswith(".tlog-proof")).decode()
    assert proof.endswith(checkpoint)
    verdict = verifier.verify_files(files)
    assert verdict.ok, verdict.problems
    assert f"witnessed: cosigned by {', '.join(names)} (witnesses)" in verdict.notes
    # A cosignature changed in the bundle is named; one removed leaves it unwitnessed.
    body, _, lines = checkpoint.partition("\n\n")
    log_line, first, second = lines.splitlines()
    forged = first[:-6] + ("AAAAA=" if not first.endswith("AAAAA=") else "BBBBB=")
    files["checkpoint.txt"] = f"{body}\n\n{log_line}\n{forged}\n{second}\n".encode()
    assert any(p.path == "audit/policy.txt" for p in verifier.verify_files(files).problems)
    files["checkpoint.txt"] = f"{body}\n\n{log_line}\n{second}\n".encode()
    assert any(n.startswith("NOT witnessed") for n in verifier.verify_files(files).notes)
