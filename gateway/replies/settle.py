"""An approval's conditions, settled: only what the lawyer typed that limits the approval.

The reader hands over what followed an approval (its sentence's tail, the sentences
after it, the list under its ":" or under the conditions prompt). What is left here is a
condition; what adds nothing to the approval is dropped (a remark such as "again", "as
discussed", thanks, a restatement of the action itself); and what makes the approval
doubtful turns it into no decision: another request's reference, text that is not text
(replacement characters from an unknown charset), more conditions than a lawyer writes.
Control and bidirectional-formatting characters never reach a condition.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass

from gateway.replies.actions import read_action
from gateway.replies.cut import is_signature_line
from gateway.replies.forms import LIMIT, condition_form
from gateway.replies.kinds import Ask, DecisionKind
from gateway.replies.negation import is_negator
from gateway.replies.phrases import find, merged_index, phrase_at
from gateway.replies.quick import adds_nothing
from gateway.replies.words import list_item, words

MAX_CONDITIONS = 50
MAX_CONDITION_CHARS = 2000
# Invisible characters that reorder or hide text ("\u202e" turns "50,000" into "000,05").
_FORMATTING = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
)
_REFERENCE = re.compile(r"\b([A-Z][A-Z0-9]{1,15})-(\d{1,12})\b")
_TRIM = " \t\r\n.,;:!-–—*_()[]\"'“”«»。、，；：！"
# Words that restate the action rather than limit it ("Approved: sign the NDA.").
_FILLER = frozenset(
    [
        "a",
        "an",
        "the",
        "it",
        "this",
        "that",
        "these",
        "those",
        "them",
        "to",
        "and",
        "please",
        "go",
        "ahead",
        "do",
        "as",
        "is",
        "be",
        "now",
        "today",
        "you",
        "your",
        "our",
        "we",
        "i",
        "can",
        "may",
    ]
)


@dataclass(frozen=True)
class Settled:
    conditions: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    # Why the approval is not one after all (the words that made it doubtful), or None.
    doubt: str | None = None


def settled_conditions(
    written: tuple[str, ...] | list[str],
    ask: Ask,
    *,
    by_verb: bool = False,
    introduced: str | None = None,
) -> Settled:
    """The conditions of an approval, from what followed it.

    ``by_verb``: the approval was the action's own verb ("Pay it.", "Stuur maar door."):
    a few words after it that set no limit are its object, not a condition.
    ``introduced``: the approval's own sentence; when it announces conditions ("subject
    to:", "unter folgenden Bedingungen"), or the items are a list, each item is one.
    """
    # Items of a list ("subject to:" and its lines): each is a condition as written.
    listed = introduced is not None and introduced.rstrip().endswith((":", "："))
    if len(written) >= MAX_CONDITIONS:
        # The reader keeps at most this many: reaching it means more were written.
        return Settled(doubt=f"{MAX_CONDITIONS} conditions or more")
    kept: list[str] = []
    dropped: list[str] = []
    for item in written:
        condition = _clean(item)
        if "\ufffd" in condition:
            return Settled(doubt="text that could not be decoded: " + condition[:200])
        if len(condition) > MAX_CONDITION_CHARS:
            return Settled(doubt="a condition longer than a lawyer writes: " + condition[:200])
        other = other_reference(condition, ask)
        if other is not None:
            return Settled(doubt=f"names another request or document ({other}): {condition[:200]}")
        if not condition.strip(_TRIM) or is_signature_line(condition):
            dropped.append(condition)
            continue
        named = None if listed or _limited(condition) else _not_in_ask(condition, ask)
        if named is not None:
            # "Approved for EUR 6,500" when 8,900 was asked, "Godkänt för Porto", "Ja, maar
            # dien het de 13e in" when the 14th was asked: the approval is of something the
            # request did not ask, so it decides nothing. Only a number after a limit
            # ("only up to EUR 40,000", "höchstens") caps what was asked instead.
            return Settled(doubt=f"names what the request does not ({named}): {condition[:200]}")
        if listed:
            # Each item of the list the approval announced is a condition as written, once.
            if _said(condition) not in {_said(k) for k in kept}:
                kept.append(condition)
            continue
        if _adds_nothing(condition, ask):
            dropped.append(condition)
            continue
        if (
            not condition_form(condition)
            and _quiet(condition)
            and (_object(condition, by_verb) or _says_to_act(condition, ask))
        ):
            # The verb's object ("it", "the invoice"), or the action said again ("Bitte
            # buchen.", "Indlever ansøgningen i dag."): it approves, it limits nothing.
            dropped.append(condition)
            continue
        if condition not in kept:
            kept.append(condition)
    return Settled(tuple(kept), tuple(dropped))


def other_reference(text: str, ask: Ask) -> str | None:
    """A reference ("HFA-00012", "TR-5250") that is neither the request's own nor one the
    ask names: the answer is about something else."""
    known = {
        m.group(0).upper() for m in _REFERENCE.finditer(f"{ask.request} {ask.proposed_action}")
    }
    if ask.reference:
        known.add(ask.reference.upper())
    for match in _REFERENCE.finditer(text[: MAX_CONDITION_CHARS * 4]):
        if match.group(0).upper() not in known:
            return match.group(0)
    return None


# A limit: an amount, a share, a duration, a date or a number of things.
_NUMBER = re.compile(r"\d[\d.,'’\u00a0\u202f ]*\d|\d")
_CAPITALISED = re.compile(r"^[A-ZÀ-ÞĀ-ŽА-ЯІЇЄҐ]")


def _digits(number: str) -> str:
    """The digits of an amount, without its cents: "48,500.00" and "48 500" are "48500"."""
    number = re.sub(r"[.,]\d{2}$", "", number.strip())
    return re.sub(r"\D", "", number)


def _not_in_ask(condition: str, ask: Ask) -> str | None:
    """A number or a name in ``condition`` that the ask does not hold, or None."""
    asked = f"{ask.request} {ask.proposed_action or ''}"
    asked_numbers = {d for n in _NUMBER.findall(asked) if (d := _digits(n))}
    for match in _NUMBER.finditer(condition):
        digits = _digits(match.group(0))
        if digits and not any(a.startswith(digits) or digits.startswith(a) for a in asked_numbers):
            return match.group(0).strip()
    asked_words = {w.text for w in words(asked)}
    found = words(condition)
    # A name right after a preposition ("für Porto", "do Porto", "voor TR-5502"): what the
    # approval is for. Other capitals are nouns (German) and names of people, not objects.
    for at, (before, word) in enumerate(itertools.pairwise(found), start=1):
        if before.text not in _FOR:
            continue
        # The whole name after it ("mit Alcor Holding" when "Alcor SAS" was asked).
        for name in found[at : at + 3]:
            text = condition[name.start : name.end]
            if not _CAPITALISED.match(text):
                break
            if name.text not in asked_words:
                return condition[word.start : name.end]
    return None


# The prepositions before what an approval is for, in the table languages.
_FOR = frozenset(
    [
        "for", "to", "with", "avec", "con", "met", "med", "com", "in", "at", "on", "of", "für",
        "nach", "zu", "pour", "à", "au", "en", "de", "para", "por", "a", "per", "voor", "naar",
        "för", "till", "i", "på", "til", "dla", "do", "na", "w", "za", "pro", "v", "для", "до",
        "на", "в", "у", "з", "за"
    ]
)  # fmt: skip


def _said(condition: str) -> str:
    """A condition without its list marker: "- cap at EUR 1m" and "cap at EUR 1m" are one."""
    return (list_item(condition) or condition).strip(_TRIM)


def _limited(condition: str) -> bool:
    """A limit or a proviso of any table ("up to", "höchstens", "以内", "provided that",
    "siempre que"), or a list item: a number or a name after one is a term the lawyer
    sets. A "but" alone ("aber spätestens am 2. Juni", "maar dien het de 13e in") is not
    one: a date or amount there that the ask does not hold answers something else."""
    found = words(condition)
    return (
        list_item(condition) is not None
        or find(found, merged_index("limits")) is not None
        or find(found, merged_index("provisos")) is not None
    )


def _clean(item: str) -> str:
    """The condition as typed, without invisible formatting and control characters."""
    text = "".join(
        " " if unicodedata.category(ch) == "Cc" and ch not in "\n\t" else ch
        for ch in item
        if ch not in _FORMATTING
    )
    return " ".join(text.split())


def _adds_nothing(condition: str, ask: Ask) -> bool:
    """Nothing in the item limits the approval: it is a remark, a signature line, the
    action said again, or made only of clauses that are ("from me, renew it", "Go ahead
    and pay it - their work was good", "bare betal den", "Ja prima", "maar")."""
    if _remark(condition) or _restates(condition, ask) or is_signature_line(condition):
        return True
    clauses = [c for c in _CLAUSES.split(condition) if c.strip(_TRIM)]
    if clauses and _reason(clauses[0].strip(_TRIM)) and _quiet(condition):
        # "Sorry für die späte Rückmeldung, war den ganzen Tag im Termin.": the whole
        # statement is the reason, unless a clause of it sets a term.
        return not any(_sets_a_term(clause) for clause in clauses)
    return bool(clauses) and all(_clause_adds_nothing(clause, ask) for clause in clauses)


def _sets_a_term(clause: str) -> bool:
    """A number, a limit, a proviso, a condition word proper or an obligation: a term of
    the approval, whatever sentence it stands in. (The modal words of ``contingent``,
    "kan", "could", are not: "Han er den bedste vi kan få" sets nothing.)"""
    found = words(clause)
    if LIMIT.search(clause):
        return True
    keys = ("limits", "provisos", "obligations", "first_steps")
    return any(find(found, merged_index(key)) is not None for key in keys)


# Where a remark may end and the next clause begin: "from me, renew it", "pay it - they
# did good work", "Godkendt. Han er den bedste."
_CLAUSES = re.compile(r"(?<=[.!。！])\s+|[,;，；、]\s*|\s+[-–—]\s+")
_MAX_REASON_WORDS = 20


def _clause_adds_nothing(clause: str, ask: Ask) -> bool:
    clause = clause.strip(_TRIM)
    if not clause or _remark(clause) or adds_nothing(clause) or is_signature_line(clause):
        return True
    if not _quiet(clause):
        return False
    plain = _without_softeners(clause)
    if not plain or _remark(plain):
        return True
    if _reason(plain) and not _sets_a_term(plain):
        return True
    if condition_form(plain):
        return False
    return _says_to_act(plain, ask) or _restates(plain, ask) or _reason(plain)


def _without_softeners(clause: str) -> str:
    """The clause without remark words at its ends ("bare betal den" -> "betal den",
    "teken maar" -> "teken")."""
    parts = clause.split()
    while parts and _remark(parts[0]):
        parts.pop(0)
    while parts and _remark(parts[-1]):
        parts.pop()
    return " ".join(parts)


def _reason(clause: str) -> bool:
    """A statement, not an instruction: it opens as one ("Han er den bedste vi kan få",
    "他们对这个行业很熟悉", "Sorry für die späte Rückmeldung") and holds no obligation
    ("He must countersign first" sets a condition)."""
    found = words(clause)
    if not found or len(found) > _MAX_REASON_WORDS:
        return False
    if find(found, merged_index("obligations")) is not None:
        return False
    opener = phrase_at(found, 0, merged_index("statement_openers"))
    return opener is not None


def _remark(condition: str) -> bool:
    """A remark that limits nothing: "again", "as discussed", "as always" (the tables'
    ``remarks``), alone or as the item's whole text."""
    found = words((list_item(condition) or condition).strip(_TRIM))
    if not found:
        return True
    hit = phrase_at(found, 0, merged_index("remarks"))
    return hit is not None and hit[1] == len(found)


def _restates(condition: str, ask: Ask) -> bool:
    """The action itself, said again: every word of the item is one of the action's."""
    action = {w.text for w in words(ask.proposed_action or "")}
    said = [w.text for w in words(list_item(condition) or condition)]
    if not action or not said or any(ch.isdigit() for ch in condition):
        return False
    content = [w for w in said if w not in _FILLER]
    return bool(content) and all(w in action for w in content) and len(content) >= 2


# How many words with no limit in them are a remark ("Standard terms.") or, after the
# action's own verb, its object ("the invoice today"), rather than something in doubt.
_REMARK_WORDS = 3
_OBJECT_WORDS = 5
_REMARK_CHARS = 60


def _object(condition: str, by_verb: bool) -> bool:
    if len(condition) > _REMARK_CHARS:
        return False
    return len(words(condition)) <= (_OBJECT_WORDS if by_verb else _REMARK_WORDS)


def _says_to_act(condition: str, ask: Ask) -> bool:
    """The sentence tells the agent to do the action itself, with nothing else."""
    read = read_action(condition, ask)
    return read is not None and read.kind is DecisionKind.APPROVAL


def _quiet(condition: str) -> bool:
    """Nothing in it holds back, defers, takes back or negates ("please hold", "not yet")."""
    found = words(condition)
    if any(is_negator(word.text, everywhere=True) for word in found):
        return False
    keys = ("holdbacks", "deferrals", "retractions", "lone_retractions")
    return all(find(found, merged_index(key)) is None for key in keys)


def ironic(text: str) -> str | None:
    """The words of irony or sarcasm in ``text`` (any table's ``irony``), or None."""
    found = words(text[: MAX_CONDITION_CHARS * 4])
    hit = find(found, merged_index("irony"))
    if hit is None:
        return None
    return text[found[hit[0]].start : found[hit[1] - 1].end]
