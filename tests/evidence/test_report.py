"""The report and the senders file: both forms of a turn's sender record, text escaped."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gateway.evidence import report, verifier
from gateway.evidence.collect import Collected
from gateway.store.models import Request

AT = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
# What the gateway's own DKIM/DMARC check records on a turn.
VERIFIED = {
    "method": "dkim",
    "domain": "lawfirm.example",
    "selector": "s2026",
    "key_sha256": "ab" * 32,
    "result": "pass",
    "verified_by": "gateway",
    "key_record": "v=DKIM1; k=rsa; p=MIIB",
}


def thread() -> dict[str, Any]:
    return {
        "reference": "HFA-00007",
        "status": "answered",
        "received_at": "2026-12-01T09:00:00.000000Z",
        "turns": [
            {"author": "agent", "kind": "request", "at": "2026-12-01T09:00:00Z", "body": "ask"},
            {
                "author": "human",
                "kind": "conditional_approval",
                "at": "2026-12-01T09:30:00Z",
                "body": "Approved if <b>capped</b>.",
                "from": "counsel@lawfirm.example",
                "decision": "approval",
                "conditions": [{"text": "capped at 40k"}],
                "authenticated_by": VERIFIED,
            },
            {
                "author": "human",
                "kind": "question",
                "at": "2026-12-01T10:00:00Z",
                "body": "Which year?",
                "from": "counsel@lawfirm.example",
                "authenticated_by": "From address only",
            },
        ],
    }


def test_each_sender_record_is_kept_in_either_form() -> None:
    senders = verifier.senders_of(thread())
    assert [s["turn"] for s in senders] == [2, 3]
    assert senders[0]["authenticated_by"] == VERIFIED
    assert senders[1]["authenticated_by"] == {
        "method": "recorded text",
        "result": "From address only",
    }
    assert json.loads(verifier.json_bytes(senders)) == senders


def test_the_report_says_who_asked_who_answered_and_how_and_escapes_the_thread() -> None:
    request = Request(
        id=7,
        category="legal_review",
        urgency="soon",
        fields={
            "request": "Sign <script>alert(1)</script> the NDA?",
            "agent_name": "contracts-bot",
            "client": "ACME",
        },
        api_key_name="research-agent",
    )
    collected = Collected("HFA-00007", request, {"matter": "M-12"}, thread(), [], 1, [], "", 0)
    context = {
        "collected": collected,
        "messages": [],
        "files": [{"path": "thread.json", "role": "the thread", "size": 2, "sha256": "c" * 64}],
        "keys": ["example.org/audit+01020304+AQID"],
        "exported_at": "2026-12-02T00:00:00Z",
        "checkpoint": ("example.org/audit", 42, b"\x01" * 32),
    }
    html = report.render("report.html", context).decode()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<b>capped</b>" not in html
    for said in (
        "contracts-bot",
        "research-agent",
        "client: ACME (the agent's claim)",
        "matter: M-12 (set by the API key)",
        "counsel@lawfirm.example",
        "capped at 40k",
        "verified_by: gateway",
        "selector: s2026",
        "From address only",
        "c" * 64,
        "1 email(s) were sent before",
    ):
        assert said in html, said
    page = report.render("certification.html", context).decode()
    assert "c" * 64 in page and "902(14)" in page


@pytest.mark.skipif(
    report.chromium() is None, reason="Chromium is not installed (.ci/run installs it)"
)
def test_the_report_prints_to_pdf_with_chromium() -> None:
    html = b"<!doctype html><html><body><h1>Evidence of HFA-00007</h1></body></html>"
    printed = report.print_to_pdf(html)
    assert printed is not None and printed.startswith(b"%PDF-")


def test_without_chromium_there_is_no_pdf_and_no_error(tmp_path: Path) -> None:
    assert report.print_to_pdf(b"<html></html>", browser=str(tmp_path / "no-chromium")) is None
