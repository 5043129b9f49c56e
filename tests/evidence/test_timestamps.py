"""Trusted time from a real TSA on loopback: kept in the bundle, checked by the verifier."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from gateway.errors import TimestampUnavailable
from gateway.evidence import verifier
from gateway.evidence.export import export
from gateway.evidence.timestamps import stamp_checkpoint
from tests.conftest import Running, SmtpSink, make_config, start_running, stop_running
from tests.evidence.kit import all_sent, answered
from tests.evidence.tsakit import running_tsa


@pytest.fixture
async def tsa_url(tmp_path: Path) -> AsyncIterator[str]:
    with running_tsa(tmp_path / "tsa") as url:
        yield url


@pytest.fixture
async def stamped_gateway(tmp_path: Path, sink: SmtpSink, tsa_url: str) -> AsyncIterator[Running]:
    running = await start_running(make_config(tmp_path / "gw", tsa_url=tsa_url), sink)
    yield running
    await stop_running(running)


async def test_the_checkpoint_is_timestamped_and_the_stamp_is_checked(
    stamped_gateway: Running, tmp_path: Path
) -> None:
    filed = await answered(stamped_gateway, "May we sign?", "Approved.\n\nDana")
    await all_sent(stamped_gateway)
    services = stamped_gateway.services
    out = tmp_path / "stamped.zip"
    done = await asyncio.to_thread(
        export, services.config, services.db, services.clock, filed["reference"], out, pdf=False
    )
    files = done.bundle.files
    assert verifier.TIMESTAMP in files
    verdict = verifier.verify_files(files)
    assert verdict.ok, verdict.problems
    (said,) = [n for n in verdict.notes if "says the TSA" in n]
    assert "CN=Test TSA" in said and "checkpoint.txt existed by 20" in said

    # The stamp vouches for this checkpoint only: another checkpoint's is refused.
    other = stamp_checkpoint(services.config, files[verifier.CHECKPOINT].decode() + "x")[0][1]
    with pytest.raises(ValueError, match="something other"):
        verifier.check_timestamp(other, files[verifier.CHECKPOINT])
    # A stamp whose time was changed no longer matches what the TSA signed.
    stamp = files[verifier.TIMESTAMP]
    when = stamp.index(b"Z", stamp.index(b"\x18\x0f20")) - 1  # the GeneralizedTime's last digit
    later = stamp[:when] + bytes([stamp[when] ^ 0x01]) + stamp[when + 1 :]
    with pytest.raises(ValueError, match="signed digest"):
        verifier.check_timestamp(later, files[verifier.CHECKPOINT])
    # A stamp whose signed content was changed is refused, naming the file.
    forged = bytearray(files[verifier.TIMESTAMP])
    forged[len(forged) // 3] ^= 0x01
    problems = verifier.verify_files({**files, verifier.TIMESTAMP: bytes(forged)}).problems
    assert {p.path for p in problems} == {verifier.TIMESTAMP}


def test_an_unreachable_tsa_fails_the_export_with_a_reason(tmp_path: Path) -> None:
    config = make_config(tmp_path, tsa_url="http://127.0.0.1:9/tsa")
    with pytest.raises(TimestampUnavailable, match="did not answer"):
        stamp_checkpoint(config, "origin\n1\nroot\n")
