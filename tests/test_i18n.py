"""The lawyer's language: every message of the code in every catalogue, answered as the catalogue does."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from gateway import i18n

ROOT = Path(__file__).resolve().parents[1]


def test_the_catalogues_hold_every_message_of_the_code_and_the_templates() -> None:
    method_map = [
        ("gateway/**.py", "python"),
        ("templates/email/**", "jinja2"),
    ]
    options = {"templates/email/**": {"extensions": "jinja2.ext.i18n", "trimmed": "true"}}
    keywords = {"_": None, "N_": None, "ngettext": (1, 2)}
    wanted = {
        message if isinstance(message, str) else message[0]
        for _file, _line, message, _comments, _context in extract_from_dir(
            str(ROOT), method_map, options, keywords
        )
    }
    assert len(wanted) > 200
    for language in i18n.LANGUAGES:
        if language == i18n.DEFAULT_LANGUAGE:
            continue
        path = ROOT / "gateway" / "locale" / language / "LC_MESSAGES" / "messages.po"
        with path.open("rb") as handle:
            catalog = read_po(handle)
        done = {
            m.id if isinstance(m.id, str) else m.id[0]
            for m in catalog
            if m.id and not m.fuzzy and all(m.string if isinstance(m.string, tuple) else [m.string])
        }
        assert not wanted - done, (language, sorted(wanted - done)[:5])


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_every_language_answers_as_its_catalogue_does(language: str) -> None:
    # English answers with the message ids at once, never through a catalogue: it must
    # answer what a catalogue of no translations would.
    catalogue = i18n.translations(language)
    with i18n.speaking(language):
        for message in ("Deadline", "due %(day)s", "no such message id"):
            assert i18n.gettext(message) == catalogue.gettext(message)
        for n in (0, 1, 2, 21):
            assert i18n.ngettext("%(n)s word", "%(n)s words", n) == catalogue.ngettext(
                "%(n)s word", "%(n)s words", n
            )
