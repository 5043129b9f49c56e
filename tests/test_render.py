"""Email templates: found from a checkout and from an installed wheel, strict, escaped."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any
from unittest.mock import Mock

import pytest

from gateway import i18n
from gateway.errors import TemplateError
from gateway.render import Renderer, templates_dir

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


def _receipt(**changes: Any) -> dict[str, Any]:
    """What the receipt template is rendered with, for a plain reply."""
    context: dict[str, Any] = {
        "subject": "s",
        "reference": "HFA-00001",
        "kind_label": "reply",
        "decision": None,
        "status": "answered",
        "body": "b",
        "recorded_at": "now",
        "sent_local": "now",
        "links": [],
        "r": {
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
    }
    return context | changes


def test_html_is_autoescaped_and_text_is_not() -> None:
    text, html = Renderer().render("receipt", **_receipt(body="<b>bold</b> & <script>x</script>"))
    assert "<b>bold</b> & <script>x</script>" in text
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;" in html


# A fixed sentence and a sentence with a variable (the footer) of the receipt, by language.
RECEIPT_WORDS = {
    "de": ("Ihre Antwort wurde erfasst", "Referenz HFA-00001. Alles in diesem Verlauf"),
    "en": ("your reply was recorded", "Reference HFA-00001. Everything in this thread"),
    "fr": ("votre réponse a été enregistrée", "Référence HFA-00001. Tout ce fil"),
}


def test_one_renderer_writes_each_email_in_its_own_language_whatever_came_before() -> None:
    # The fixed sentences are translated when a template is compiled: an email written
    # first in German must leave none of its words in the English or French that follow.
    renderer = Renderer()
    for language in ("de", "en", "fr", "de", "en"):
        with i18n.speaking(language):
            text, html = renderer.render("receipt", **_receipt())
        for said in (text, " ".join(html.split())):
            for other, words in RECEIPT_WORDS.items():
                for sentence in words:
                    assert (sentence in said) == (other == language), (language, sentence)


def test_a_templates_fixed_sentences_are_not_looked_up_again_for_each_email(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An email asks for some fifty sentences: looked up in the catalogue for each email,
    # they were a large part of writing it. Only {% trans %} blocks and the word filters
    # (whose words are the email's data) are looked up as it is written.
    renderer = Renderer()
    with i18n.speaking("de"):
        first, _html = renderer.render("receipt", **_receipt())
        looked_up = Mock(wraps=i18n.translations)
        monkeypatch.setattr(i18n, "translations", looked_up)
        again, _html = renderer.render("receipt", **_receipt())
    assert again == first
    # Each of the receipt's sentences was looked up again (fourteen look-ups in German).
    assert 0 < looked_up.call_count <= 5, looked_up.call_count


def test_an_emails_includes_are_compiled_into_it_not_looked_up_for_each_email(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each include looked its template up and copied the whole context, half a dozen
    # times per email; spliced in when the template is compiled, neither happens.
    renderer = Renderer()
    environment = renderer.environment("en")
    first, _html = renderer.render("receipt", **_receipt())
    looked_up = Mock(wraps=environment.get_template)
    monkeypatch.setattr(environment, "get_template", looked_up)
    again, _html = renderer.render("receipt", **_receipt())
    assert again == first
    # The two templates, the layout the HTML extends and the macros it imports: nothing
    # they include.
    looked = sorted(c.args[0] for c in looked_up.call_args_list)
    assert looked == ["_layout.html", "_macros.html", "receipt.html", "receipt.txt"]


def _written(tmp_path: Path, templates: dict[str, str]) -> Renderer:
    for name, source in templates.items():
        (tmp_path / name).write_text(source)
    return Renderer(tmp_path)


def test_an_include_that_binds_names_is_left_to_jinja_and_keeps_its_scope(
    tmp_path: Path,
) -> None:
    # A name the included template sets or imports must not change what the includer
    # sees after it: such an include is not spliced in, and jinja scopes it.
    renderer = _written(
        tmp_path,
        {
            "page.txt": '{% set x = "mine" %}{% include "_sets.txt" %}|{{ x }}|'
            '{% include "_imports.txt" %}|{{ shout }}',
            "page.html": "",
            "_sets.txt": '{% set x = "theirs" %}{{ x }}',
            "_imports.txt": '{% from "_m.txt" import shout %}{{ shout("hi") }}',
            "_m.txt": "{% macro shout(s) %}{{ s | upper }}{% endmacro %}",
        },
    )
    text, _html = renderer.render("page", shout="the context's")
    assert text == "theirs|mine|HI|the context's"


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
