"""``bench.kills``: kill -9s of ``hfa serve`` in bursts, and what the relay got."""

from __future__ import annotations

import pytest

from bench import kills


def test_a_short_run_counts_every_request_email_and_its_copies(
    capsys: pytest.CaptureFixture[str],
) -> None:
    kills.main(["--kills", "1", "--dot-timeout", "2", "--seed", "3"])
    said = dict(pair.split("=") for pair in capsys.readouterr().out.split())
    assert said["kills"] == "1"
    assert int(said["request_emails"]) >= 1
    assert said["never_received"] == "0"
    assert said["received_twice_or_more"] == "0" and said["extra_copies"] == "0"
