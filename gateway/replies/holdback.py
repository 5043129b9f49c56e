"""What stops an approval in the decision region: it is held back, taken back or asked.

An approval (or a yes) stands only if nothing in its paragraph defers it, hands
it to a later step, holds part of it back, asks, or takes it back. Each check
returns the lawyer's words that stopped it, for the receipt's "because you
wrote". Hold-backs are read in the languages the paragraph may be in (their
words are ordinary words elsewhere: Italian "prima" is Dutch "great"); a "no"
standing alone, a retraction and a question mark stop an approval in any
language, since a stop only ever errs towards no decision.
"""

from __future__ import annotations

from collections.abc import Iterable

from gateway.replies.language import identify, script_languages, with_kin
from gateway.replies.lexicon import LEXICON
from gateway.replies.negation import exempt_positions, is_negator
from gateway.replies.phrases import GAP_WORDS, find, merged_index, own_index, phrase_at
from gateway.replies.statement import STANDS_ALONE
from gateway.replies.words import Word, is_question, list_item, sentence_spans, words

_MAX_BECAUSE = 300
# Every language's "no" words, by their first word.
_NO_WORDS: dict[str, list[tuple[str, ...]]] = {}
for _no in LEXICON.no_words:
    _NO_WORDS.setdefault(_no[0], []).append(_no)


def sentence_at(region: str, position: int) -> str:
    """The sentence of ``region`` that holds ``position``, as the lawyer wrote it."""
    for start, end in sentence_spans(region):
        if start <= position < end:
            return region[start:end].strip()[:_MAX_BECAUSE]
    return region.strip()[:_MAX_BECAUSE]


def stands_as_is(sentence: str) -> bool:
    """ "No changes needed.", "Nothing to add.", "Замечаний нет.": the whole sentence says
    the approval stands as it is, and its "no" is about the document, not the approval.
    A question, or any word more, and it is read as any other sentence ("No changes to
    clause 4." is a condition)."""
    if is_question(sentence):
        return False
    found = words(sentence)
    hit = phrase_at(found, 0, merged_index("as_is")) if found else None
    return hit is not None and hit[1] == len(found)


def held_back(region: str, found: list[Word], after: int, languages: Iterable[str]) -> str | None:
    """A hold-back ("don't sign yet", "in principle", "let me check with Anna first"), a
    deferral ("I'll look at it tomorrow") or a step first ("send me the draft first")."""
    for language in languages:
        held = _holdback_word(region, found, after, language)
        if held is not None:
            return held
        step = _first_step(region, found, after, language)
        if step is not None:
            return step
    return None


def held_back_in_script(region: str, found: list[Word], after: int) -> str | None:
    """A hold-back word of any table language written in the region's script.

    Notes typed under a one-click APPROVE approve by the keyword, a word of no
    language, so nothing anchors the languages to read: a short note is easily taken
    for a neighbour ("Godkänt, men pausa resten." for Finnish), and its own
    hold-back would go unread. Hold-back words are read in every language of the
    script; "first" words are not, since they are ordinary words elsewhere.
    """
    for language in script_languages(region):
        held = _holdback_word(region, found, after, language)
        if held is not None:
            return held
    return None


def _holdback_word(region: str, found: list[Word], after: int, language: str) -> str | None:
    """The sentence with the first of ``language``'s hold-back words, if any."""
    start = after
    while (hit := find(found, own_index(language, "holdbacks"), start)) is not None:
        if not within_proviso(found, hit, language):
            return sentence_at(region, found[hit[0]].start)
        start = hit[0] + 1
    return None


def within_proviso(found: list[Word], hit: tuple[int, int], language: str) -> bool:
    """Whether the words of ``hit`` are all inside a proviso of ``language``: "solo dopo la
    firma", "først når kontrakten er underskrevet" set a condition on a third party's step,
    while "dopo" or "først" alone put the action off. A longer hold-back ("erst nach meinem
    Termin": the lawyer's own step) reaches past the proviso and still holds it back."""
    provisos = own_index(language, "provisos")
    for at in range(max(0, hit[0] - 3), hit[0] + 1):
        match = phrase_at(found, at, provisos)
        if match is not None and match[1] >= hit[1]:
            return True
    return False


def refused(region: str, found: list[Word], after: int, languages: Iterable[str]) -> str | None:
    """A rejection said after the approval that stands as a statement of its own
    ("Akkoord, maar niet tekenen.", "署名しないでください。") or is held until something
    ("niet tekenen zolang ...", "don't sign until ..."): the action is not approved. One
    with an object of its own is a condition ("but do not send it to personal addresses")."""
    for language in languages:
        rejections = own_index(language, "reject_phrases")
        until = [merged_index("contingent"), *(own_index(language, key) for key in _UNTIL)]
        start = after
        exempt = exempt_positions(found)
        while (hit := find(found, rejections, start)) is not None:
            end = hit[1]
            if hit[0] in exempt:
                # "Не возражаю", "Nada a opor": the objection is itself negated.
                start = hit[0] + 1
                continue
            ends_clause = end == len(found) or found[end].gap != ""
            if ends_clause or any(phrase_at(found, end, words) for words in until):
                sentence = sentence_at(region, found[hit[0]].start)
                # "No tengo objeciones.": the rejection ("tengo objeciones") is negated.
                if not stands_as_is(sentence):
                    return sentence
            start = hit[0] + 1
    return None


# What may follow a rejection and hold the action back until something happens.
_UNTIL = ("provisos", "holdbacks", "first_steps")


def _first_step(region: str, found: list[Word], after: int, language: str) -> str | None:
    """ "first" / "zuerst" outside a proviso or a listed condition ("provided the DPA is
    signed first" is a condition; "call me first" holds the action back)."""
    for key in ("first_steps", "closing_steps"):
        start = after
        steps = own_index(language, key)
        while (hit := find(found, steps, start)) is not None:
            counts = key == "first_steps" or _closes_a_step(region, found, after, hit, language)
            counts = counts and not within_proviso(found, hit, language)
            if counts and (step := _outside_a_condition(region, found, after, hit, language)):
                return step
            start = hit[1]
    return None


def _closes_a_step(
    region: str, found: list[Word], after: int, hit: tuple[int, int], language: str
) -> bool:
    """A closing "first" ends the clause of the step it puts first, with nothing between
    them ("mandami la bozza prima."), in a sentence most likely in its own language.

    Italian "prima" is Dutch "great": that one stands alone, after a comma or after an
    approval ("Akkoord, prima."), and a short Dutch sentence ("Akkoord, dat is prima.")
    is read with every table of its script but is most likely Dutch.
    """
    first, end = hit
    rest = region[found[end - 1].end :].lstrip(" \t")
    if not (rest == "" or rest.startswith((*STANDS_ALONE, "?"))):
        return False
    if first <= after or found[first].gap != "" or _agrees_before(found, first):
        return False
    return identify(sentence_at(region, found[first].start))[:1] == (language,)


def _agrees_before(found: list[Word], position: int) -> bool:
    """Whether an approval, agreement or yes of any language ends just before ``position``."""
    for key in ("approve", "approve_phrases", "agreement", "yes"):
        words_of = merged_index(key)
        for start in range(max(0, position - GAP_WORDS), position):
            hit = phrase_at(found, start, words_of)
            if hit is not None and hit[1] == position:
                return True
    return False


def _outside_a_condition(
    region: str, found: list[Word], after: int, hit: tuple[int, int], language: str
) -> str | None:
    """The sentence of a first step, unless it is inside a proviso or a listed condition."""
    at = found[hit[0]].start
    line_start = region.rfind("\n", 0, at) + 1
    line_end = region.find("\n", at)
    line = region[line_start : line_end if line_end >= 0 else len(region)]
    sentence = sentence_at(region, at)
    sentence_start = region.find(sentence, 0, at + 1) if sentence else at
    before = [w for w in found[after : hit[0]] if w.start >= max(sentence_start, 0)]
    if list_item(line) is not None:
        return None
    # A language read with its kin (Danish and Norwegian, Russian and Ukrainian) shares
    # their steps: the proviso before one may be written in either.
    for kin in with_kin((language,)):
        if find(before, own_index(kin, "provisos")) is not None:
            return None
    return sentence


def taken_back(region: str, found: list[Word], after: int) -> str | None:
    """A retraction ("scratch that", "wait", "Moment"), or a "no" standing alone after the
    approval ("Approved. Oh no, wait", "Genehmigt. Nein, doch nicht"), in any language."""
    hit = find(found, merged_index("retractions"), 0)
    if hit is not None:
        return sentence_at(region, found[hit[0]].start)
    for index in range(after, len(found)):
        word = found[index]
        for wanted in _NO_WORDS.get(word.text, ()):
            size = len(wanted)
            if tuple(w.text for w in found[index : index + size]) != wanted:
                continue
            rest = region[found[index + size - 1].end :].lstrip(" \t*_")
            if rest == "" or rest.startswith((*STANDS_ALONE, "?")):
                sentence = sentence_at(region, word.start)
                if not stands_as_is(sentence):
                    return sentence
    return _lone_retraction(region, found, after)


def _lone_retraction(region: str, found: list[Word], after: int) -> str | None:
    """A sentence after the approval that is nothing but a word that calls it off
    ("Approved. Cancelled.", "Genehmigt. Storniert.", "批准。作废。"), in any language.

    Such words ("cancel", "stop", "void") are ordinary in a sentence of their own
    ("cancel the old order"), so they retract only where they stand alone.
    """
    begin = found[after - 1].end if after else 0
    for start, end in sentence_spans(region):
        if end <= begin:
            continue
        # The paragraph's own words, not the sentence read again.
        said = [w for w in found if w.start >= max(start, begin) and w.end <= end]
        if said and _calls_off(said):
            return region[max(start, begin) : end].strip(" \t\n,;:")[:_MAX_BECAUSE]
    return None


def _calls_off(said: list[Word]) -> bool:
    """The sentence is a word that calls the approval off, with nothing beside it but
    other such words, "no" words and negators ("Stop, don't.", "No, cancel.")."""
    lone = merged_index("lone_retractions")
    position, calls_off = 0, False
    while position < len(said):
        hit = phrase_at(said, position, lone)
        if hit is not None:
            position, calls_off = hit[1], True
        elif said[position].text in _NO_WORDS or is_negator(said[position].text, everywhere=True):
            position += 1
        else:
            return False
    return calls_off


def asks(region: str) -> str | None:
    """A question anywhere in the paragraph: the approval is not the last word yet."""
    for start, end in sentence_spans(region):
        if is_question(region[start:end]):
            return region[start:end].strip()[:_MAX_BECAUSE]
    return None
