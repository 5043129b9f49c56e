"""The decisive statement: how the first paragraph opens, in the reply's own language.

What opens the paragraph is read with one language's table only (see
``language.py``): a decision word ("Approved", read_from "keyword"), a natural
statement ("No objection", "Not in this form", read_from "phrase"), an
agreement word with a comma and a proviso ("Fine, as long as ..."), a
statement whose proviso comes before its verb ("...を条件に承認します"), or a
bare yes/no, which answers the ask and is not a decision by itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.replies.kinds import KIND, DecisionKind, ReadFrom, YesNo
from gateway.replies.language import surely
from gateway.replies.lexicon import BY_LANGUAGE, LEXICON, Lexicon
from gateway.replies.negation import exempt_positions, negated
from gateway.replies.phrases import find, own_index, phrase_at
from gateway.replies.words import Word, matches_at, sentence_spans

LEADING_PUNCTUATION = " \t*_\"'“”‘’«»「『([-–—"
STANDS_ALONE = ("\n", ".", "!", ",", ";", ":", "-", "–", "—", "[", "。", "、", "，", "！", "：", "；", "…")  # fmt: skip
# After a go-ahead word: the end, or a mark that ends its clause ("Go ahead, but only ...").
_STOPS = ("\n", ".", "!", ",", ";", ":", " -", "–", "—", "。", "、", "，", "！", "：", "；")  # fmt: skip
_COMMA = frozenset(",，、")


@dataclass(frozen=True)
class Lead:
    """What opens the decision region: a kind, or a yes/no answer, and its words."""

    kind: DecisionKind | None
    answer: YesNo | None
    read_from: ReadFrom
    size: int  # words of the decision phrase
    language: str
    # For a statement whose proviso comes first: the proviso, the approval's condition.
    condition: str | None = None
    # Every language whose table reads these words as a decision: its hold-backs apply too.
    readers: tuple[str, ...] = ()


def leading(region: str, found: list[Word], language: str) -> Lead | None:
    """The decision that opens ``region``, read with ``language``'s table only."""
    if not found or region[: found[0].start].strip(LEADING_PUNCTUATION):
        return None
    lexicon = BY_LANGUAGE[language]
    return (
        _keyword_or_phrase(region, found, lexicon, language)
        or _agreement_with_proviso(found, language)
        or _proviso_first(region, found, lexicon, language)
        or _bare(region, found, lexicon, language)
    )


def _after(region: str, found: list[Word], size: int) -> str:
    return region[found[size - 1].end :].lstrip(" \t*_")


def _keyword_or_phrase(
    region: str, found: list[Word], lexicon: Lexicon, language: str
) -> Lead | None:
    best: Lead | None = None
    for key, kind in (("approve_phrases", "approve"), ("reject_phrases", "reject")):
        hit = phrase_at(found, 0, own_index(language, key))
        if hit is not None:
            best = Lead(KIND[kind], None, "phrase", hit[1], language)
            break
    for wanted, kind_name, _language in lexicon.leading_by_first.get(found[0].text, ()):
        if not matches_at(found, 0, wanted) or (best and best.size >= len(wanted)):
            continue
        after = _after(region, found, len(wanted))
        if wanted in lexicon.alone and after and not after.startswith(("\n", ".", "!", "[")):
            # "Close, but ..." / "D'accord, je regarde demain" do not decide.
            return None
        if wanted in lexicon.needs_stop and after and not after.startswith(_STOPS):
            # "Go ahead and send me the draft first": another step goes ahead.
            return None
        return Lead(KIND[kind_name], None, "keyword", len(wanted), language)
    return best


def _agreement_with_proviso(found: list[Word], language: str) -> Lead | None:
    """ "Fine, as long as ...": an agreement word, a comma and a proviso."""
    hit = phrase_at(found, 0, own_index(language, "agreement"))
    if hit is None or hit[1] >= len(found):
        return None
    after = found[hit[1]]
    if not _COMMA & set(after.gap):
        return None
    if phrase_at(found, hit[1], own_index(language, "provisos")) is None:
        return None
    return Lead(DecisionKind.APPROVAL, None, "phrase", hit[1], language)


def _proviso_first(region: str, found: list[Word], lexicon: Lexicon, language: str) -> Lead | None:
    """ "...を条件に承認します。" / "Subject to the cap, approved.": the approval ends the first
    sentence and a proviso opens or leads up to it."""
    spans = sentence_spans(region)
    if not spans:
        return None
    end = spans[0][1]
    last = [i for i, word in enumerate(found) if word.end <= end]
    if len(last) < 2:
        return None
    proviso = find(found[: last[-1] + 1], own_index(language, "provisos"))
    if proviso is None:
        return None
    approvals = [p for p, kind, _ in lexicon.leading if kind == "approve"]
    approvals += list(lexicon.phrases.get("approve_phrases", ()))
    for wanted in approvals:
        start = last[-1] + 1 - len(wanted)
        if start >= proviso[1] and matches_at(found, start, wanted):
            condition = region[: found[start].start].rstrip(" ,，、")
            return Lead(DecisionKind.APPROVAL, None, "phrase", 0, language, condition)
    return None


def _bare(region: str, found: list[Word], lexicon: Lexicon, language: str) -> Lead | None:
    """A yes/no word that stands alone ("Yes." / "No, use 6"): an answer to the ask."""
    for wanted, kind_name, _language in lexicon.bare:
        size = len(wanted)
        if tuple(w.text for w in found[:size]) != wanted:
            continue
        after = _after(region, found, size)
        if after == "" or after.startswith(STANDS_ALONE):
            answer: YesNo = "yes" if kind_name == "approve" else "no"
            return Lead(None, answer, "yes_no", size, language)
    for wanted in lexicon.phrases.get("sure_yes", ()):
        size = len(wanted)
        if tuple(w.text for w in found[:size]) != wanted:
            continue
        after = _after(region, found, size)
        if (after == "" or after.startswith(STANDS_ALONE)) and surely(language, region):
            return Lead(None, "yes", "yes_no", size, language)
    return None


def agreed(leads: list[Lead]) -> tuple[Lead | None, bool]:
    """The one reading all tables that read something agree on, and whether they disagree."""
    if not leads:
        return None, False
    first = leads[0]
    if all((lead.kind, lead.answer) == (first.kind, first.answer) for lead in leads):
        return first, False
    return None, True


def kinds_in(region: str, found: list[Word]) -> set[DecisionKind]:
    """Every decision word of any language in the region, ignoring negated approvals.

    "Rejected - not approved" is a rejection; inline answers count where they open a
    line ("Yes, German law is fine.\\nNo, make it 24 months.").
    """
    kinds: set[DecisionKind] = set()
    exempt = exempt_positions(found)
    ends = [end for _, end in sentence_spans(region)]
    for index, word in enumerate(found):
        kind = None
        size = 1
        for wanted, kind_name, _language in LEXICON.leading_by_first.get(word.text, ()):
            if matches_at(found, index, wanted):
                kind, size = KIND[kind_name], len(wanted)
                break
        if kind is None and opens_line(region, word):
            kind, size = bare_at(region, found, index) or (None, 1)
        if kind is DecisionKind.APPROVAL:
            end = next((e for e in ends if e > word.start), len(region))
            if negated(found, index, size, None, end, exempt):
                continue
        if kind is not None and kind is not DecisionKind.QUESTION:
            kinds.add(kind)
    return kinds


# Every language's yes/no words by their first word (the merged reading, for conflicts).
_BARE_BY_FIRST: dict[str, list[tuple[tuple[str, ...], str, str]]] = {}
for _item in LEXICON.bare:
    _BARE_BY_FIRST.setdefault(_item[0][0], []).append(_item)


def bare_at(region: str, found: list[Word], index: int) -> tuple[DecisionKind, int] | None:
    for wanted, kind_name, _language in _BARE_BY_FIRST.get(found[index].text, ()):
        size = len(wanted)
        if tuple(w.text for w in found[index : index + size]) != wanted:
            continue
        after = region[found[index + size - 1].end :].lstrip(" \t*_")
        if after == "" or after.startswith(("\n", ".", "!", ",", ";", ":", "-", "。", "，", "！")):
            return KIND[kind_name], size
    return None


def opens_line(region: str, word: Word) -> bool:
    line_start = region.rfind("\n", 0, word.start) + 1
    return not region[line_start : word.start].strip(" \t*_-–—>")
