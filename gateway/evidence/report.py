"""The bundle's human-readable pages (jinja2, autoescaped) and the report printed to PDF.

Everything shown comes from the thread, written by agents and mail clients:
autoescaping keeps any of it from becoming markup. The PDF is Chromium's
``--print-to-pdf`` of the same HTML, made only where Chromium is installed,
with no network and a private profile.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

TEMPLATES = Path(__file__).resolve().parent / "templates"
PDF_SECONDS = 60.0

_ENV = Environment(
    loader=FileSystemLoader(str(TEMPLATES)),
    autoescape=select_autoescape(["html"]),
    undefined=StrictUndefined,
    keep_trailing_newline=True,
)


def render(name: str, context: dict[str, Any]) -> bytes:
    return _ENV.get_template(name).render(**context).encode()


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def print_to_pdf(html: bytes, browser: str | None = None) -> bytes | None:
    """The page printed by headless Chromium; None where there is no Chromium or it fails."""
    browser = browser or chromium()
    if browser is None:
        return None
    with tempfile.TemporaryDirectory(prefix="hfa-evidence-") as work:
        page, out = Path(work) / "report.html", Path(work) / "report.pdf"
        page.write_bytes(html)
        command = [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-pdf-header-footer",
            # Nothing is fetched: the report is self-contained.
            "--proxy-server=127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
            f"--user-data-dir={Path(work) / 'profile'}",
            f"--print-to-pdf={out}",
            page.as_uri(),
        ]
        try:
            subprocess.run(command, capture_output=True, timeout=PDF_SECONDS, check=False)  # noqa: S603 (a fixed command line)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return out.read_bytes() if out.is_file() and out.stat().st_size else None
