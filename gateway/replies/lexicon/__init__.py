"""The decision words of every language, read from the ``*.toml`` tables here.

See README.md in this folder for what each key means. The tables are data:
the rules in ``gateway.replies.decision`` are the same for every language, and
a language is added by adding its file. Everything is read once, at import.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources

from gateway.replies.words import phrase

# "acknowledge" (I'M ON IT) is read, not answered: it only has English words, from the quick reply.
KINDS = ("approve", "reject", "decline", "question", "close", "acknowledge")
_LIST_KEYS = (
    *KINDS, "yes", "no", "approval_stems", "negated_forms", "negators", "local_negators",
    "not_negating", "conditions", "contingent", "retractions", "lone_retractions", "greetings",
    "not_answers", "alone",
    "approve_phrases", "reject_phrases", "decline_phrases", "agreement", "needs_stop", "provisos",
    "holdbacks", "deferrals", "first_steps", "closing_steps", "courtesies", "as_is", "thanks_for",
    "remarks", "irony", "sure_yes", "limits", "reviewed", "statement_openers", "obligations", "otherwise", "if_words", "first_person",
)  # fmt: skip

Phrase = tuple[str, ...]


@dataclass(frozen=True)
class Language:
    code: str
    name: str
    entries: dict[str, tuple[str, ...]]

    def phrases(self, key: str) -> list[Phrase]:
        return [p for p in (_phrase(entry) for entry in self.entries[key]) if p]


# In a phrase, "*" stands for one to a few words ("ask * instead": "ask Tom instead").
GAP = "*"


def _phrase(entry: str) -> Phrase:
    parts = [phrase(part) for part in entry.split(GAP)]
    joined: list[str] = []
    for number, part in enumerate(parts):
        if number:
            joined.append(GAP)
        joined.extend(part)
    return tuple(joined) if any(parts) else ()


@dataclass
class Lexicon:
    """Every language's words, merged, with the language each one came from."""

    languages: dict[str, Language] = field(default_factory=dict)
    # kind name -> phrases (longest first); each phrase with its language code
    leading: list[tuple[Phrase, str, str]] = field(default_factory=list)
    bare: list[tuple[Phrase, str, str]] = field(default_factory=list)
    approval_marks: list[tuple[Phrase, str, bool]] = field(default_factory=list)
    negated_forms: tuple[str, ...] = ()
    negators: frozenset[str] = frozenset()
    local_negators: dict[str, frozenset[str]] = field(default_factory=dict)
    not_negating: list[Phrase] = field(default_factory=list)
    conditions: list[Phrase] = field(default_factory=list)
    contingent: list[Phrase] = field(default_factory=list)
    retractions: list[Phrase] = field(default_factory=list)
    greetings: tuple[str, ...] = ()
    alone: frozenset[Phrase] = frozenset()
    # First words of condition phrases: after a comma they open a new clause.
    clause_openers: frozenset[str] = frozenset()
    # Indexes for speed: phrases by their first word; single-word stems as one tuple.
    stems: tuple[str, ...] = ()
    stem_language: dict[str, str] = field(default_factory=dict)
    marks_by_first: dict[str, list[tuple[Phrase, str]]] = field(default_factory=dict)
    not_negating_by_first: dict[str, list[Phrase]] = field(default_factory=dict)
    leading_by_first: dict[str, list[tuple[Phrase, str, str]]] = field(default_factory=dict)
    # The reading of one language (empty in the merged lexicon): natural phrases by kind,
    # agreement words, go-ahead words that need a stop after them, hold-backs, provisos.
    phrases: dict[str, list[Phrase]] = field(default_factory=dict)
    needs_stop: frozenset[Phrase] = frozenset()
    no_words: frozenset[Phrase] = frozenset()


def by_first(phrases: list[Phrase]) -> dict[str, list[Phrase]]:
    index: dict[str, list[Phrase]] = {}
    for p in phrases:
        index.setdefault(p[0], []).append(p)
    return index


def _read(code: str, text: str) -> Language:
    data = tomllib.loads(text)
    entries: dict[str, tuple[str, ...]] = {}
    for key in _LIST_KEYS:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"lexicon {code}: {key} must be a list of strings")
        entries[key] = tuple(value)
    unknown = set(data) - {*_LIST_KEYS, "name"}
    if unknown:
        raise ValueError(f"lexicon {code}: unknown keys {sorted(unknown)}")
    return Language(code, str(data.get("name", code)), entries)


def _longest_first(items: list[tuple[Phrase, str, str]]) -> list[tuple[Phrase, str, str]]:
    return sorted(set(items), key=lambda item: (-len(item[0]), item))


# The keys read per language (never merged): they decide or veto only in their own language.
OWN_KEYS = (
    "approve_phrases", "reject_phrases", "decline_phrases", "agreement", "provisos",
    "holdbacks", "deferrals", "first_steps", "closing_steps", "conditions", "yes", "sure_yes",
)  # fmt: skip


def build(languages: list[Language], never_bare: set[Phrase] | None = None) -> Lexicon:
    """The lexicon of ``languages``; ``never_bare`` are the yes/no words that no language
    may read as an answer (a non-answer in any language), by default those of ``languages``."""
    lexicon = Lexicon(languages={language.code: language for language in languages})
    if never_bare is None:
        never_bare = {p for language in languages for p in language.phrases("not_answers")}
    leading: list[tuple[Phrase, str, str]] = []
    bare: list[tuple[Phrase, str, str]] = []
    marks: list[tuple[Phrase, str, bool]] = []
    for language in languages:
        for kind in KINDS:
            leading += [(p, kind, language.code) for p in language.phrases(kind)]
        for key, kind in (("yes", "approve"), ("no", "reject")):
            # A yes/no word that is "thanks" or "so" in another language never decides.
            bare += [(p, kind, language.code) for p in language.phrases(key) if p not in never_bare]
        marks += [(p, language.code, True) for p in language.phrases("approval_stems")]
        marks += [(p, language.code, False) for p in language.phrases("approve")]
        marks += [(p, language.code, False) for p in language.phrases("yes")]
        lexicon.local_negators[language.code] = frozenset(
            word for p in language.phrases("local_negators") for word in p
        )
    lexicon.leading = _longest_first(leading)
    lexicon.bare = _longest_first(bare)
    lexicon.approval_marks = sorted(set(marks), key=lambda m: (-len(m[0]), m))
    lexicon.negated_forms = tuple(
        sorted({"".join(p) for lang in languages for p in lang.phrases("negated_forms")})
    )
    lexicon.negators = frozenset(
        word for language in languages for p in language.phrases("negators") for word in p
    )
    for key in ("not_negating", "conditions", "contingent", "retractions"):
        merged = {p for language in languages for p in language.phrases(key)}
        setattr(lexicon, key, sorted(merged, key=lambda p: (-len(p), p)))
    lexicon.alone = frozenset(p for language in languages for p in language.phrases("alone"))
    lexicon.needs_stop = frozenset(p for lang in languages for p in lang.phrases("needs_stop"))
    lexicon.no_words = frozenset(p for lang in languages for p in lang.phrases("no"))
    if len(languages) == 1:
        lexicon.phrases = {key: _longest(languages[0].phrases(key)) for key in OWN_KEYS}
    _index(lexicon)
    lexicon.greetings = tuple(
        sorted({g.casefold() for lang in languages for g in lang.entries["greetings"]}, key=len)
    )[::-1]
    return lexicon


def _longest(phrases: list[Phrase]) -> list[Phrase]:
    return sorted(set(phrases), key=lambda p: (-len(p), p))


def _index(lexicon: Lexicon) -> None:
    for wanted, language, is_stem in lexicon.approval_marks:
        if is_stem and len(wanted) == 1:
            lexicon.stem_language.setdefault(wanted[0], language)
        else:
            lexicon.marks_by_first.setdefault(wanted[0], []).append((wanted, language))
    lexicon.stems = tuple(sorted(lexicon.stem_language, key=len, reverse=True))
    lexicon.not_negating_by_first = by_first(lexicon.not_negating)
    lexicon.clause_openers = frozenset(p[0] for p in (*lexicon.conditions, *lexicon.contingent))
    for item in lexicon.leading:
        lexicon.leading_by_first.setdefault(item[0][0], []).append(item)


def load() -> Lexicon:
    folder = resources.files(__name__)
    found = sorted(
        (entry.name.removesuffix(".toml"), entry.read_text(encoding="utf-8"))
        for entry in folder.iterdir()
        if entry.name.endswith(".toml")
    )
    return build([_read(code, text) for code, text in found])


LEXICON = load()
LANGUAGES = tuple(LEXICON.languages)
_NEVER_BARE = {
    p for language in LEXICON.languages.values() for p in language.phrases("not_answers")
}
# One lexicon per language: what decides is read with the reply's own language only.
BY_LANGUAGE: dict[str, Lexicon] = {
    code: build([language], _NEVER_BARE) for code, language in LEXICON.languages.items()
}
