"""Which language a reply (or one sentence of it) is written in, among those with a table.

py3langid (the maintained fork of langid.py) ships its model inside the wheel and
adds about 10 MB to a process; it is restricted to the languages that have a
table in ``lexicon/``. A detector is unreliable on a few words ("Ja.", "OK",
"承認"), so a short or unclear text gets every table language of its script, and
the reader then accepts only a decision that all of those tables agree on.
Kana is Japanese alone, so Japanese text never reaches a Chinese word.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

from gateway.replies.lexicon import LANGUAGES

# The detector's code for a table's language, where they differ (Norwegian Bokmål).
_DETECTOR_CODE = {"nb": "no"}
_TABLE_CODE = {detector: table for table, detector in _DETECTOR_CODE.items()}
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_CJK_LANGUAGES = ("ja", "zh")
_CYRILLIC_LANGUAGES = ("ru", "uk")
# Languages written so alike that the detector cannot tell them apart on a sentence or two
# ("Ser bra ut, dere kan signere" is Bokmål, detected as Danish; "Запитайте краще" is
# Ukrainian, detected as Russian): where it picks one, the other is read too.
_KIN = {"da": ("nb",), "nb": ("da",), "ru": ("uk",), "uk": ("ru",)}
# Below these many letters (ideographs) a guess is not trusted, whatever its score.
MIN_LETTERS = 20
MIN_IDEOGRAPHS = 6
MIN_CONFIDENCE = 0.8
# Enough text to tell a language; more only costs time.
_MAX_CHARS = 1000


@cache
def _identifier() -> Any:
    """Loaded at the first reply, so a process that reads none never holds the model."""
    # Imported here, not at the top: it brings numpy (about 12 MB) with it, which the HTTP
    # role and an idle worker should not carry.
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_pickled_model(MODEL_FILE, norm_probs=True)
    identifier.set_languages([_DETECTOR_CODE.get(code, code) for code in LANGUAGES])
    return identifier


def script_languages(text: str) -> tuple[str, ...]:
    """The table languages written in the script(s) of ``text``."""
    if _KANA.search(text):
        return ("ja",)
    found: list[str] = []
    if _HAN.search(text):
        found += _CJK_LANGUAGES
    if _CYRILLIC.search(text):
        found += _CYRILLIC_LANGUAGES
    if _LATIN.search(text):
        found += [c for c in LANGUAGES if c not in (*_CJK_LANGUAGES, *_CYRILLIC_LANGUAGES)]
    return tuple(code for code in found if code in LANGUAGES)


def _letters(text: str) -> float:
    """Letters, an ideograph counting as much as a few letters of an alphabet."""
    ideographs = len(_HAN.findall(text))
    letters = sum(ch.isalpha() for ch in text) - ideographs
    return letters + ideographs * MIN_LETTERS / MIN_IDEOGRAPHS


# Letters that, within its script, only this table's language writes: "Tak, wyślij." is
# Polish (ś), "Так, надсилайте їм" Ukrainian (ї), whatever the detector makes of four words.
_OWN_LETTERS = {
    "pl": frozenset("ąćęłńśźż"),
    "uk": frozenset("іїєґ"),
    "ru": frozenset("ыэъё"),
}


def surely(language: str, text: str) -> bool:
    """Whether ``text`` is surely in ``language``: the detector is sure of it, or it has
    letters only that language writes and none that only a neighbour writes."""
    if identify(text) == (language,):
        return True
    letters = set(text.lower())
    own = _OWN_LETTERS.get(language)
    if not own or not letters & own:
        return False
    rivals = (_OWN_LETTERS.get(code, frozenset()) for code in script_languages(text))
    return not any(letters & rival for rival in rivals if rival is not own)


def with_kin(languages: tuple[str, ...]) -> tuple[str, ...]:
    """``languages`` and the languages the detector cannot tell them from, in that order."""
    kin = [code for language in languages for code in _KIN.get(language, ())]
    return (*languages, *(code for code in dict.fromkeys(kin) if code not in languages))


def identify(text: str) -> tuple[str, ...]:
    """The languages ``text`` may be in, most likely first; one when the detector is sure."""
    return _identify(text[:_MAX_CHARS])


@lru_cache(maxsize=512)
def _identify(text: str) -> tuple[str, ...]:
    # A reply's first sentence is often its whole paragraph too: asked twice, read once.
    candidates = script_languages(text)
    if len(candidates) <= 1:
        return candidates
    ranked = [(_TABLE_CODE.get(code, code), score) for code, score in _identifier().rank(text)]
    ranked = [(code, score) for code, score in ranked if code in candidates]
    if not ranked:
        return candidates
    best, score = ranked[0]
    if score >= MIN_CONFIDENCE and _letters(text) >= MIN_LETTERS:
        return (best,)
    return tuple(code for code, _score in ranked)
