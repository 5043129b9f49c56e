"""Read the lawyer's decision from explicit words at the start of a reply.

The words of every language come from the tables in ``lexicon/``; the rules
here are the same for all of them. A wrong approval is the worst defect this
package can have, so every rule errs towards "no decision" (the agent then
reads the text, or asks again):

- The decision word must OPEN the new text (after an optional greeting line)
  or open the subject, as the quick-reply links fill it in ("APPROVE [HFA-1]").
  "I cannot approve", "Not approved" and "Disapprove" therefore never start
  with an approval word.
- A first sentence that is a question decides nothing ("Approved?", "Approve
  the NDA as it stands?"); a first paragraph that asks a question and takes no
  decision is a question.
- Anywhere in the new text or subject, an approval word with a negation a few
  words before it, or after it in the same sentence ("do not approve", "Ich
  genehmige das nicht", "承認しません"), vetoes any approval.
- An approval and a rejection/decline word in the decision region (the first
  paragraph), body and subject disagreeing, or a retraction ("scratch that")
  give no decision.
- An approval with a condition ("subject to", "provided that", "but only",
  ":" and a list) is an approval WITH conditions, carried in
  ``Decision.conditions``; one whose condition the same sentence says is
  unmet ("Approved if they have signed, which they have not") is no decision.
- Yes/no words approve or reject only as the whole first line or followed by
  punctuation ("No, use 6 instead of 5" rejects; "No problem" decides nothing).
- "close" only counts alone or before "." / "!" ("Close, but change clause 5" is
  not a close).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from gateway.replies.conditions import read_conditions
from gateway.replies.errors import ReplyError
from gateway.replies.lexicon import LEXICON, Phrase
from gateway.replies.negation import exempt_positions, has_negated_approval, negated
from gateway.replies.words import Word, is_kana, is_question, matches_at, sentence_spans, words


class DecisionKind(enum.StrEnum):
    APPROVAL = "approval"
    REJECTION = "rejection"
    DECLINE = "decline"
    QUESTION = "question"
    CLOSE = "close"
    # "I'M ON IT": read, not answered; the quick-reply link fills it in.
    ACKNOWLEDGE = "acknowledgement"


_KIND = {
    "approve": DecisionKind.APPROVAL,
    "reject": DecisionKind.REJECTION,
    "decline": DecisionKind.DECLINE,
    "question": DecisionKind.QUESTION,
    "close": DecisionKind.CLOSE,
    "acknowledge": DecisionKind.ACKNOWLEDGE,
}


@dataclass(frozen=True)
class Decision:
    """The decision (None when there is none) and the words that triggered it.

    ``ambiguous`` is set when decision words were found but conflict, are
    negated or taken back: the reply is then recorded with no decision, as
    read but not answered either way. ``conditions`` is non-empty for an
    approval with conditions: never treat it as a bare approval.
    """

    kind: DecisionKind | None
    trigger: str | None = None
    ambiguous: bool = False
    conditions: tuple[str, ...] = ()
    # Where the decision came from: "quick_reply" (an answer link's keyword, with what
    # was typed under its prompt), "keyword" (a decision word of the tables), "phrase"
    # (a natural statement such as "No objection") or "yes_no" (a yes/no to an ask that
    # is whether to carry out the proposed action). None when nothing was decided.
    read_from: ReadFrom | None = None
    # The lawyer's own words that decided it (or that made it no decision), quoted
    # back in the receipt as "because you wrote: ...".
    because: str | None = None
    # A bare yes/no answers the ask; it becomes a decision only through
    # :func:`decide_answer`, where the ask is whether to carry out the action.
    answer: YesNo | None = None
    # The language the decision was read in (ISO 639-1), where one was identified.
    language: str | None = None


ReadFrom = Literal["quick_reply", "keyword", "phrase", "yes_no"]
YesNo = Literal["yes", "no"]


@dataclass(frozen=True)
class Ask:
    """What the lawyer was asked: the request's text and the proposed action, if any."""

    request: str
    proposed_action: str | None = None


def decide_answer(decision: Decision, ask: Ask) -> Decision:
    """A yes/no answer made a decision where the ask is, unmistakably, whether to carry
    out the proposed action; otherwise the decision as read (the answer kept as data)."""
    return decision


_NO_DECISION = Decision(None)
_REPLY_PREFIX = re.compile(
    r"^\s*(?:(?:re|aw|antw|antwort|sv|vs|r|rif|ref|réf|tr|wg|fw|fwd|odp|ynt|回复|答复)\s?"
    r"(?:\[\d{1,4}\])?\s?[:：]\s*)+",
    re.IGNORECASE,
)
_GREETING = re.compile(
    r"^\s*(?:" + "|".join(re.escape(g) for g in LEXICON.greetings) + r")(?!\w)"
    r"[^.!?\n。！？]{0,60}[,!:。、，！：]?\s*$",
    re.IGNORECASE,
)
_LEADING_PUNCTUATION = " \t*_\"'“”‘’«»「『([-–—"
_STANDS_ALONE = ("\n", ".", "!", ",", ";", ":", "-", "–", "—", "[", "。", "、", "，", "！", "：", "；")  # fmt: skip
# The decision region: the first paragraph, bounded so huge inputs stay cheap.
_MAX_REGION = 600
_MAX_SCAN = 200_000


def read_decision(new_text: str, subject: str | None) -> Decision:
    """The decision carried by ``new_text`` or a quick-reply ``subject``."""
    try:
        return _read(new_text, subject)
    except ReplyError:
        raise
    except Exception as exc:  # the contract: nothing but ReplyError escapes
        raise ReplyError(f"cannot read decision: {type(exc).__name__}") from exc


def _read(new_text: str, subject: str | None) -> Decision:
    if not isinstance(new_text, str) or not isinstance(subject, str | None):
        raise ReplyError("new_text must be str and subject str or None")
    region = decision_region(new_text)
    body = _decision_in(region, new_text[:_MAX_SCAN])
    subject_text = _REPLY_PREFIX.sub("", subject or "", count=1)[:_MAX_REGION]
    from_subject = _decision_in(subject_text, subject_text)
    asks = _asks_question(region)
    if body.ambiguous or from_subject.ambiguous:
        return body if body.ambiguous else from_subject
    if body.kind and from_subject.kind and body.kind is not from_subject.kind:
        return Decision(None, f"{body.trigger} / {from_subject.trigger}", ambiguous=True)
    if body.kind is None and from_subject.kind is not None and asks is not None:
        # "APPROVE [HFA-1]" over "Who signs?": the body does not bear the subject out.
        return Decision(None, from_subject.trigger, ambiguous=True)
    decision = body if body.kind else from_subject
    if decision.kind is DecisionKind.APPROVAL and (
        has_negated_approval(new_text) or has_negated_approval(subject or "")
    ):
        return Decision(None, decision.trigger, ambiguous=True)
    if decision.kind is None and asks is not None:
        return Decision(DecisionKind.QUESTION, asks)
    return decision


def decision_region(text: str) -> str:
    """The first paragraph of the answer, after an optional greeting line."""
    lines = [line for line in text[:_MAX_SCAN].split("\n") if not line.lstrip().startswith(">")]
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and _GREETING.match(lines[0][:200]):
        lines.pop(0)
        while lines and not lines[0].strip():
            lines.pop(0)
    region: list[str] = []
    for line in lines:
        if not line.strip():
            break
        region.append(line)
    return "\n".join(region)[:_MAX_REGION]


def _asks_question(region: str) -> str | None:
    """The first question the paragraph asks, if it asks one."""
    for start, end in sentence_spans(region):
        if is_question(region[start:end]):
            return region[start:end].strip()[:200]
    return None


def _decision_in(region: str, text: str) -> Decision:
    found = words(region)
    if not found:
        return _NO_DECISION
    leading = _leading_decision(region, found)
    if leading is None:
        return _NO_DECISION
    kind, size = leading
    trigger = region[found[0].start : found[size - 1].end]
    spans = sentence_spans(region)
    first_end = next((end for _, end in spans if end > found[size - 1].start), len(region))
    if kind is not DecisionKind.QUESTION and is_question(region[:first_end]):
        return _NO_DECISION  # a question about the decision, not the decision
    if kind is DecisionKind.APPROVAL and _has_retraction(found):
        # "Approved - scratch that": an approval taken back at once is none.
        return Decision(None, trigger, ambiguous=True)
    kinds = _kinds_in(region, found)
    kinds.add(kind)
    if DecisionKind.APPROVAL in kinds and kinds & {DecisionKind.REJECTION, DecisionKind.DECLINE}:
        return Decision(None, trigger, ambiguous=True)
    if kind is not DecisionKind.APPROVAL:
        return Decision(kind, trigger)
    if negated(found, 0, size, None, first_end, exempt_positions(found)):
        return Decision(None, trigger, ambiguous=True)
    reading = read_conditions(region, text, first_end, found[size - 1].end)
    if reading.unmet:
        return Decision(None, trigger, ambiguous=True)
    return Decision(kind, trigger, conditions=reading.conditions)


def _leading_decision(region: str, found: list[Word]) -> tuple[DecisionKind, int] | None:
    # Only punctuation may come before the decision word ("**Approved**").
    if region[: found[0].start].strip(_LEADING_PUNCTUATION):
        return None
    for wanted, kind_name, _language in LEXICON.leading_by_first.get(found[0].text, ()):
        if not matches_at(found, 0, wanted):
            continue
        after = region[found[len(wanted) - 1].end :].lstrip(" \t*_")
        if wanted in LEXICON.alone and after and not after.startswith(("\n", ".", "!", "[")):
            # "Close, but ..." / "Close to done" mean nearly, not "close the request".
            return None
        return _KIND[kind_name], len(wanted)
    bare = _bare_at(region, found, 0)
    return bare


def _bare_at(region: str, found: list[Word], index: int) -> tuple[DecisionKind, int] | None:
    """A yes/no word at ``index`` that stands alone (exact words: no kana particles)."""
    for wanted, kind_name, _language in LEXICON.bare:
        size = len(wanted)
        if tuple(w.text for w in found[index : index + size]) != wanted:
            continue
        if _stands_alone(region[found[index + size - 1].end :].lstrip(" \t*_")):
            return _KIND[kind_name], size
    return None


def _kinds_in(region: str, found: list[Word]) -> set[DecisionKind]:
    """Every decision word in the region, ignoring negated approvals.

    "Rejected - not approved" is a rejection; inline answers count where they
    open a line ("Yes, German law is fine.\\nNo, make it 24 months.").
    """
    kinds: set[DecisionKind] = set()
    exempt = exempt_positions(found)
    ends = [end for _, end in sentence_spans(region)]
    for index, word in enumerate(found):
        kind = None
        size = 1
        for wanted, kind_name, _language in LEXICON.leading_by_first.get(word.text, ()):
            if matches_at(found, index, wanted):
                kind, size = _KIND[kind_name], len(wanted)
                break
        if kind is None and _opens_line(region, word):
            bare = _bare_at(region, found, index)
            if bare is not None:
                kind, size = bare
        if kind is DecisionKind.APPROVAL:
            end = next((e for e in ends if e > word.start), len(region))
            if negated(found, index, size, None, end, exempt):
                continue
        if kind is not None and kind is not DecisionKind.QUESTION:
            kinds.add(kind)
    return kinds


@cache
def _retractions_by_first_word() -> tuple[dict[str, tuple[Phrase, ...]], tuple[Phrase, ...]]:
    """The retraction phrases by their first word, and those whose first word is kana.

    A phrase can only start where the reply's word is its first word (or, for a
    kana word, starts with it), so each word of a reply is tried against a few
    phrases rather than every phrase of every language.
    """
    by_first: dict[str, list[Phrase]] = {}
    kana: list[Phrase] = []
    for wanted in LEXICON.retractions:
        if wanted:
            by_first.setdefault(wanted[0], []).append(wanted)
            if is_kana(wanted[0]):
                kana.append(wanted)
    return {k: tuple(v) for k, v in by_first.items()}, tuple(kana)


def _has_retraction(found: list[Word]) -> bool:
    by_first, kana = _retractions_by_first_word()
    for index, word in enumerate(found):
        candidates = by_first.get(word.text, ())
        if kana and is_kana(word.text):
            candidates += kana
        if any(matches_at(found, index, wanted) for wanted in candidates):
            return True
    return False


def _opens_line(region: str, word: Word) -> bool:
    line_start = region.rfind("\n", 0, word.start) + 1
    return not region[line_start : word.start].strip(" \t*_-–—>")


def _stands_alone(after: str) -> bool:
    """The word ends its line, or punctuation other than "?" follows it."""
    return after == "" or after.startswith(_STANDS_ALONE)
