"""The proposed action's own verb, as the lawyer's answer: "Pay it.", "Bitte buchen.", "Ne signez pas."

Lawyers answer a request to act with the act itself: an imperative ("Sign it.",
"Réservez-le."), a permission ("You may file v7.", "Sie können unterschreiben."), or
its negation ("Don't pay.", "Nie podpisuj."). The tables in ``lexicon/actions/`` give,
per language, the verbs of each canonical action (named by the English table's verbs:
sign, pay, send, book, file, transfer, release, delete, accept, engage), the words of
permission said before them, and the words that forbid. The canonical action is the one
whose English verbs open the proposed action (agents write it in English).

Only the opening sentence is read, and only the verb of the action proposed: "Yes,
please hold." to a request to pay decides nothing here. An imperative or a permission
is an approval read by ``decision.read_led``, so every rule that stops an approval (a
hold-back, a question, a later "but not before ...", a condition) applies as to any
other; a negation before the verb (or, in Japanese, after it) is a rejection.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources

from gateway.replies.decision import decision_region, read_led
from gateway.replies.forms import condition_form
from gateway.replies.kinds import Ask, Decision, DecisionKind
from gateway.replies.language import identify, script_languages, with_kin
from gateway.replies.lexicon import LEXICON
from gateway.replies.negation import is_negator
from gateway.replies.phrases import find, merged_index
from gateway.replies.words import Word, phrase, sentence_spans, words

# How many words may stand between the opening (a yes, a permission) and the verb:
# "Sie können den Vertrag heute unterschreiben".
_BETWEEN = 6
# Words of a yes or an agreement that may open the sentence before the verb.
_OPENING_KEYS = ("yes", "no", "agreement")
_MAX_OPENING = 3
# How far into the sentence a permission may stand after the action's object.
_OBJECT_FIRST = 5


@dataclass(frozen=True)
class Verb:
    words: tuple[str, ...]
    prefix: bool  # the last word matches every word that begins with it


@dataclass(frozen=True)
class Table:
    permit: tuple[tuple[str, ...], ...]
    forbid: tuple[tuple[str, ...], ...]
    verbs: dict[str, tuple[Verb, ...]]
    # Said right after the verb, these permit it (languages whose verb comes last).
    after: tuple[tuple[str, ...], ...] = ()
    # Said before all of it, they change nothing ("Per ora non pubblicare", "先别发").
    lead_in: tuple[tuple[str, ...], ...] = ()
    # Glued to the verb, it negates it ("nepublikujte", "nezveřejňujte").
    negating_prefix: tuple[str, ...] = ()
    # How a question asks whether to do it ("darf ich", "må jeg", "てもよろしいでしょうか").
    asks: tuple[str, ...] = ()


def _verb(entry: str) -> Verb:
    prefix = entry.endswith("*")
    return Verb(phrase(entry.rstrip("*")), prefix)


@cache
def tables() -> dict[str, Table]:
    folder = resources.files("gateway.replies.lexicon") / "actions"
    found: dict[str, Table] = {}
    for entry in folder.iterdir():
        if not entry.name.endswith(".toml"):
            continue
        data = tomllib.loads(entry.read_text(encoding="utf-8"))
        found[entry.name.removesuffix(".toml")] = Table(
            tuple(p for p in map(phrase, data.get("permit", [])) if p),
            tuple(p for p in map(phrase, data.get("forbid", [])) if p),
            {k: tuple(map(_verb, v)) for k, v in data.get("verbs", {}).items()},
            tuple(p for p in map(phrase, data.get("after", [])) if p),
            tuple(p for p in map(phrase, data.get("lead_in", [])) if p),
            tuple(data.get("negating_prefix", [])),
            tuple(data.get("asks", [])),
        )
    return found


def action_of(ask: Ask) -> str | None:
    """The canonical action of the proposed action ("Pay EUR 48,500" -> "pay"): the verb
    it opens with in English, as agents write it; otherwise the verb of another table
    that opens it ("Pagar la provisión", "Zapłacić fakturę") or, in a language whose
    infinitive comes last, ends it ("De factuur betalen", "Den Mietvertrag unterzeichnen"),
    where every table that reads one reads the same action."""
    return _action_of(ask.proposed_action or "")


# Languages whose infinitive closes the proposed action ("... unterzeichnen", "... betalen").
_VERB_LAST = ("de", "nl")


@cache
def _action_of(proposed: str) -> str | None:
    found = words(proposed)
    english = tables().get("en")
    if not found or english is None:
        return None
    for action, verbs in english.verbs.items():
        if any(_verb_at(found, 0, verb) for verb in verbs):
            return action
    named: set[str] = set()
    for code, table in tables().items():
        places = (0, len(found) - 1) if code in _VERB_LAST else (0,)
        for action, verbs in table.verbs.items():
            if any(_verb_at(found, at, verb) for at in places for verb in verbs):
                named.add(action)
    return named.pop() if len(named) == 1 else None


# A question: "?" in any script, or a Japanese one ending in "か。".
_QUESTION_END = ("?", "？")


def asks_to_act(ask: Ask) -> bool:
    """The request's one question asks, in any table language, whether to do the proposed
    action: "Darf ich den Notartermin buchen?", "Må jeg betale den?", "答弁書を提出しても
    よろしいでしょうか。". A yes or no to it is then an approval or a rejection. With no
    action proposed, the question asks whether to do the action its own verb names."""
    action = action_of(ask)
    named_only = not (ask.proposed_action or "").strip()
    if action is None and not named_only:
        return False
    parts = [p.strip() for p in re.split(r"(?<=[.!?。！？])\s*", ask.request[:4000]) if p.strip()]
    questions = [p for p in parts if p.endswith(_QUESTION_END) or p.rstrip("。").endswith("か")]
    if len(questions) != 1:
        return False
    question = questions[0].casefold()
    found = words(question)
    if _not_plain(question, found):
        return False
    for table in tables().values():
        if not any(_asked_with(question, found, wanted) for wanted in table.asks):
            continue
        if action is None:
            # No action proposed: the question alone names it ("Darf ich den Vertrag mit
            # Kestrel unterschreiben?"), with a verb of any action the tables know.
            verbs = (v for other in tables().values() for vs in other.verbs.values() for v in vs)
        else:
            verbs = (verb for other in tables().values() for verb in other.verbs.get(action, ()))
        if any(_verb_in(question, found, verb) for verb in verbs):
            return True
    return False


# "Soll ich warten oder einreichen?", "Skal jeg ikke betale?": a yes answers something else.
_OR = re.compile(r"\b(?:oder|ou|o|of|eller|tai|или|або|nebo|lub|albo|ali)\b|还是|または|それとも")


def _not_plain(question: str, found: list[Word]) -> bool:
    """The question is not plainly whether to act: it offers a choice, negates, or asks
    whether to wait."""
    if _OR.search(question):
        return True
    if any(is_negator(word.text, everywhere=True) for word in found):
        return True
    return find(found, merged_index("holdbacks")) is not None


def _asked_with(question: str, found: list[Word], wanted: str) -> bool:
    if _cjk(wanted):
        return wanted in question  # no spaces between words to match on
    phrase_words = _phrase_of(wanted)
    return any(_at(found, at, phrase_words) for at in range(min(len(found), 4)))


@cache
def _phrase_of(entry: str) -> tuple[str, ...]:
    return phrase(entry)


def _verb_in(question: str, found: list[Word], verb: Verb) -> bool:
    if verb.words and _cjk(verb.words[0]):
        return "".join(verb.words) in question
    return any(_verb_at(found, at, verb) for at in range(len(found)))


def _cjk(text: str) -> bool:
    return any("\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" for ch in text)


def read_action(said: str, ask: Ask) -> Decision | None:
    """The decision the action's own verb carries in the opening sentence of ``said``."""
    action = action_of(ask)
    if action is None:
        return None
    region = decision_region(said)
    spans = sentence_spans(region)
    first = region[: spans[0][1]] if spans else region
    found = words(first)
    if not found:
        return None
    candidates = [c for c in script_languages(first) if c in tables()]
    detected = [c for c in with_kin(identify(first)) if c in candidates]
    for code in detected + [c for c in candidates if c not in detected]:
        hit = _said_in(found, tables()[code], action, code)
        if hit is not None:
            kind, size = hit
            decision = read_led(said, kind, size, code)
            return _with_condition_first(decision, first, found, size, _permitting(found, code))
    return None


def _permitting(found: list[Word], code: str) -> int:
    """How many opening words only say yes or permit ("Ja,", "Du kan godt", "Vous pouvez")."""
    at = _after_opening(found, code)
    permit = tables()[code].permit
    while (hit := _first(found, at, permit)) is not None:
        at += len(hit)
    return at


def _with_condition_first(
    decision: Decision, first: str, found: list[Word], size: int, opening: int = 0
) -> Decision:
    """An approval whose condition stands before the verb ("30時間以内であれば、依頼して結構
    です", "Nur bis EUR 40.000 zahlen"): the words before the verb are its condition; the
    words that only say yes or permit it ("Du kan godt indlevere") are none."""
    if decision.kind is not DecisionKind.APPROVAL or size < 2:
        return decision
    if opening >= size - 1:
        return decision
    before = first[: found[size - 1].start].strip(" \t、，,")
    if not before or not condition_form(before):
        return decision
    return replace(decision, conditions=(before, *decision.conditions))


def _said_in(
    found: list[Word], table: Table, action: str, code: str
) -> tuple[DecisionKind, int] | None:
    """(approval or rejection, words up to the verb) when the sentence says the action."""
    if table.after:
        return _verb_then(found, table, action)
    for at in dict.fromkeys((0, _after_opening(found, code))):
        hit = _from(found, at, table, action)
        if hit is not None:
            return hit
    # The object first, then the permission and the verb: "Den Gerichtsvollzieher können
    # Sie beauftragen", "výzvu můžete dnes odeslat".
    for at in range(1, min(len(found), _OBJECT_FIRST)):
        if _first(found, at, table.permit) is not None:
            return _from(found, at, table, action)
    return None


def _from(found: list[Word], at: int, table: Table, action: str) -> tuple[DecisionKind, int] | None:
    permitted = negated = False
    lead_in = _first(found, at, table.lead_in)
    if lead_in is not None:
        at += len(lead_in)
    # "Bitte nicht", "Please don't", "Non": a permission or a negation before the verb.
    for _ in range(3):
        forbid = _first(found, at, table.forbid)
        permit = _first(found, at, table.permit)
        if forbid is not None:
            negated, at = True, at + len(forbid)
        elif permit is not None:
            permitted, at = True, at + len(permit)
        elif at < len(found) and is_negator(found[at].text, everywhere=True):
            negated, at = True, at + 1
        else:
            break
    limit = _BETWEEN if permitted or negated else 1
    for position in range(at, min(len(found), at + limit)):
        verb = next((v for v in table.verbs.get(action, ()) if _verb_at(found, position, v)), None)
        if verb is None:
            if _negated_verb(found, position, table, action):
                return DecisionKind.REJECTION, position + 1
            continue
        end = position + len(verb.words)
        if negated or _forbidden(found[:end], found[end : end + 2], table):
            return DecisionKind.REJECTION, end
        return DecisionKind.APPROVAL, end
    return None


def _negated_verb(found: list[Word], position: int, table: Table, action: str) -> bool:
    """ "Nepublikujte to": the verb with its negation glued on."""
    text = found[position].text
    for prefix in table.negating_prefix:
        if text.startswith(prefix):
            rest = [replace(found[position], text=text[len(prefix) :])]
            if any(_verb_at(rest, 0, verb) for verb in table.verbs.get(action, ())):
                return True
    return False


def _verb_then(found: list[Word], table: Table, action: str) -> tuple[DecisionKind, int] | None:
    """Languages whose verb comes last, its permission or negation after it: "本日発送して
    ください", "署名して差し支えありません", "削除はしないでください"."""
    for position in range(len(found)):
        verb = next((v for v in table.verbs.get(action, ()) if _verb_at(found, position, v)), None)
        if verb is None:
            continue
        end = position + len(verb.words)
        # Kana runs carry their particles ("はしないでください"): read as one string.
        following = "".join(word.text for word in found[end : end + 3])
        if any("".join(p) in following for p in table.forbid):
            return DecisionKind.REJECTION, end
        if any(following.startswith("".join(p)) for p in table.after):
            return DecisionKind.APPROVAL, end
    return None


@cache
def _openings(code: str) -> tuple[tuple[str, ...], ...]:
    language = LEXICON.languages[code]
    found = {p for key in _OPENING_KEYS for p in language.phrases(key)}
    return tuple(sorted(found, key=len, reverse=True))


def _after_opening(found: list[Word], code: str) -> int:
    """Past an opening yes, no or agreement ("Ja,", "D'accord,", "No,"): where the verb
    (or the words that permit or forbid it) may stand."""
    at = 0
    for _ in range(_MAX_OPENING):
        opening = _first(found, at, _openings(code))
        size = len(opening) if opening is not None else 0
        if not size:
            break
        at += size
    return at


def _forbidden(before: list[Word], after: list[Word], table: Table) -> bool:
    for at in range(len(before)):
        if _first(before, at, table.forbid) is not None:
            return True
        if is_negator(before[at].text, everywhere=True):
            return True
    return any(_first(after, at, table.forbid) is not None for at in range(len(after)))


Phrases = tuple[tuple[str, ...], ...]


@cache
def _by_first(phrases: Phrases) -> dict[str, Phrases]:
    """The phrases by their first word, longest first; kana words under "" (they match
    the start of a word, so they are tried at every word)."""
    found: dict[str, list[tuple[str, ...]]] = {}
    for wanted in sorted(phrases, key=len, reverse=True):
        found.setdefault("" if _kana(wanted[0]) else wanted[0], []).append(wanted)
    return {k: tuple(v) for k, v in found.items()}


def _first(found: list[Word], at: int, phrases: Phrases) -> tuple[str, ...] | None:
    """The longest of ``phrases`` that stands at word ``at``, or None."""
    if at >= len(found):
        return None
    index = _by_first(phrases)
    for wanted in (*index.get(found[at].text, ()), *index.get("", ())):
        if _at(found, at, wanted):
            return wanted
    return None


def _at(found: list[Word], at: int, wanted: tuple[str, ...]) -> bool:
    if at + len(wanted) > len(found):
        return False
    return all(
        found[at + i].text == w or (found[at + i].text.startswith(w) and _kana(w))
        for i, w in enumerate(wanted)
    )


def _kana(word: str) -> bool:
    return all("\u3040" <= ch <= "\u30ff" for ch in word)


def _verb_at(found: list[Word], at: int, verb: Verb) -> bool:
    wanted = verb.words
    if not wanted or at + len(wanted) > len(found):
        return False
    for i, w in enumerate(wanted):
        text = found[at + i].text
        last = i == len(wanted) - 1
        if text == w or (last and verb.prefix and text.startswith(w)):
            continue
        if _kana(w) and text.startswith(w):
            continue
        return False
    return True
