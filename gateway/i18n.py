"""The lawyer's language: Babel message catalogues, read from gateway/locale.

Every sentence the gateway writes to a lawyer is an English message id,
marked ``_("...")`` in Python and ``{% trans %}`` / ``_()`` in the email
templates. The catalogues are the ``.po`` files in ``gateway/locale/<lang>/
LC_MESSAGES/messages.po``; they are compiled in memory the first time a
language is used, so a fresh clone and the wheel (which ships the ``.po``
files inside the package) need no build step and no compiled ``.mo`` in git.

The language of the email being written is a context variable set by
:func:`speaking`, so the modules that build an email's sentences serve every
language; the templates are compiled once per language, with their fixed
sentences translated then (``gateway.render``).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from gettext import NullTranslations
from pathlib import Path

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

DEFAULT_LANGUAGE = "en"
# Every language with a catalogue; English is the message ids themselves.
LANGUAGES = ("en", "de", "fr", "es", "it", "nl")
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_current: ContextVar[str] = ContextVar("hfa_language", default=DEFAULT_LANGUAGE)
# Message ids looked up but missing from a catalogue, when a test asks to see them.
_missing: ContextVar[set[tuple[str, str]] | None] = ContextVar("hfa_missing", default=None)


def supported(tag: object) -> str | None:
    """``de``, ``de-CH``, ``de_DE`` -> ``de``; None for a language without a catalogue."""
    if not isinstance(tag, str):
        return None
    base = tag.strip().replace("_", "-").split("-", 1)[0].lower()
    return base if base in LANGUAGES else None


@cache
def translations(language: str) -> NullTranslations:
    """The compiled catalogue of ``language`` (English: the message ids as they are)."""
    path = LOCALE_DIR / language / "LC_MESSAGES" / "messages.po"
    if language == DEFAULT_LANGUAGE or not path.is_file():
        return NullTranslations()
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=language)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)  # fuzzy entries are left out, as msgfmt does
    compiled.seek(0)
    return Translations(compiled)


def current() -> str:
    return _current.get()


@cache
def locale_of(language: str) -> Locale:
    """Babel's locale data for ``language`` (parsed once per language)."""
    return Locale.parse(language)


def locale() -> Locale:
    """Babel's locale data for the language being written (parsed once per language)."""
    return locale_of(_current.get())


@contextmanager
def speaking(language: str | None) -> Iterator[str]:
    """Write in ``language`` (or the default) until the block ends."""
    chosen = supported(language) or DEFAULT_LANGUAGE
    token = _current.set(chosen)
    try:
        yield chosen
    finally:
        _current.reset(token)


def _note_missing(key: object, message: str) -> None:
    missing = _missing.get()
    language = _current.get()
    if missing is None or language == DEFAULT_LANGUAGE:
        return
    catalog = getattr(translations(language), "_catalog", {})
    if key not in catalog:
        missing.add((language, message))


def gettext(message: str) -> str:
    language = _current.get()
    if language == DEFAULT_LANGUAGE:
        # English is the message ids themselves: an email asks for some seventy.
        return message
    _note_missing(message, message)
    return translations(language).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    language = _current.get()
    if language == DEFAULT_LANGUAGE:
        return singular if n == 1 else plural
    _note_missing((singular, 0), singular)
    return translations(language).ngettext(singular, plural, n)


_ = gettext


@cache
def in_every_language(message: str) -> frozenset[str]:
    """``message`` as each catalogue writes it, English included: for reading back words
    the gateway itself wrote into an email, whatever language that email was in."""
    return frozenset(
        message if language == DEFAULT_LANGUAGE else translations(language).gettext(message)
        for language in LANGUAGES
    )


def N_(message: str) -> str:
    """Marks a message id for the catalogues where it is defined; translated where shown."""
    return message


@contextmanager
def watching_missing() -> Iterator[set[tuple[str, str]]]:
    """Collect (language, message id) of every lookup a catalogue could not answer."""
    seen: set[tuple[str, str]] = set()
    token = _missing.set(seen)
    try:
        yield seen
    finally:
        _missing.reset(token)
