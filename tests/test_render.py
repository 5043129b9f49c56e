"""Email templates: found from a checkout and from an installed wheel, strict, escaped."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from gateway.render import Renderer, TemplateError, templates_dir

ROOT = Path(__file__).resolve().parents[1]


def test_templates_are_found_in_the_checkout() -> None:
    assert templates_dir() in (
        ROOT / "templates" / "email",
        ROOT / "gateway" / "_templates" / "email",
    )
    for name in ("request", "follow_up", "receipt"):
        assert (templates_dir() / f"{name}.txt").exists()
        assert (templates_dir() / f"{name}.html").exists()


def test_a_missing_variable_is_an_error_not_an_empty_line() -> None:
    with pytest.raises(TemplateError, match="reference"):
        Renderer().render("receipt", kind_label="reply")


def test_html_is_autoescaped_and_text_is_not() -> None:
    text, html = Renderer().render(
        "receipt",
        subject="s",
        reference="HFA-00001",
        kind_label="reply",
        decision=None,
        status="answered",
        body="<b>bold</b> & <script>x</script>",
        recorded_at="now",
        sent_local="now",
        links=[],
        r={
            "headline": "Your reply was recorded",
            "late": "",
            "target": None,
            "conditions": [],
            "why": "",
            "standing": "",
            "effect": "",
            "attachments": [],
            "reading": None,
            "tally": "",
        },
    )
    assert "<b>bold</b> & <script>x</script>" in text
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;" in html


@pytest.mark.slow
def test_the_wheel_ships_the_templates(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if result.returncode != 0 and "hatchling" in result.stderr:
        pytest.skip("hatchling is not installed for a no-isolation build")
    assert result.returncode == 0, result.stderr
    wheel = next(tmp_path.glob("hfa_gateway-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "gateway/_templates/email/request.txt" in names
    assert "gateway/_templates/email/request.html" in names
    assert "gateway/tools.json" in names
    assert "gateway/store/migrations/versions/0001_initial_schema.py" in names
