"""Read the lawyer's decision from the decisive statement of a reply, as a whole.

The words of every language come from the tables in ``lexicon/``; the rules
here are the same for all of them. A wrong approval is the worst defect this
package can have, so every rule errs towards "no decision" (the agent then
reads the text, or asks again):

- The structured channel comes first: a quick-reply link's keyword ("APPROVE
  [HFA-1]" as subject, the keyword as the body's first line) decides, with what
  the lawyer typed under its prompt read as part of the answer (``quick.py``).
  No other subject decides anything: our own subjects carry the ask's verbs.
- Otherwise the first paragraph (after an optional greeting line) is read in
  the reply's own language (``language.py``), and what opens it decides: a
  decision word, a natural statement, or a yes/no (``statement.py``). A yes/no
  answers the ask: it is kept as ``answer`` with no decision, and
  ``decide_answer`` makes it one only where the ask is whether to act.
- An approval (or a yes) stands only if nothing in the paragraph holds it back,
  defers it, hands it to a later step, asks, or takes it back
  (``holdback.py``); a negated approval anywhere vetoes it; an approval and a
  rejection or decline in the same paragraph give no decision. The paragraphs
  after it may still stop it (a hold-back, refusal, retraction, proviso or
  rejection there), never start or widen it.
- An approval with a condition ("subject to", "provided that", ":" and a list)
  is an approval WITH conditions, carried in ``Decision.conditions``; one whose
  condition the same sentence says is unmet is no decision.
- A first sentence that is a question decides nothing; a paragraph that asks
  and decides nothing is a question.
"""

from __future__ import annotations

import re
from dataclasses import replace

from gateway.errors import ReplyError
from gateway.replies.answer import decide_answer
from gateway.replies.branches import sets_condition, without_branches
from gateway.replies.conditions import MAX_CONDITION_CHARS, read_conditions
from gateway.replies.holdback import asks, held_back, refused, sentence_at, taken_back
from gateway.replies.kinds import NO_DECISION, Ask, Decision, DecisionKind
from gateway.replies.language import identify, script_languages, with_kin
from gateway.replies.lexicon import LEXICON
from gateway.replies.negation import exempt_positions, has_negated_approval, negated
from gateway.replies.opening import is_greeting, without_preamble
from gateway.replies.phrases import find, merged_index, own_index, phrase_at
from gateway.replies.quick import (
    NEUTRAL_KEYWORDS,
    adds_nothing,
    read_after_approval,
    read_quick_reply,
)
from gateway.replies.statement import Lead, agreed, kinds_in, leading
from gateway.replies.unled import asked, declined
from gateway.replies.words import (
    Word,
    forget_splits,
    is_question,
    list_item,
    matches_at,
    sentence_spans,
    words,
)

__all__ = [
    "Ask", "Decision", "DecisionKind", "decide_answer", "decision_region", "read_decision", "read_led",
]  # fmt: skip

# The quick-reply keywords typed at the start of a reply, in any language: "REJECT. ..."
_NEUTRAL = re.compile(
    r"^[\s*_\"'“”]*(" + "|".join(re.escape(k) for k in NEUTRAL_KEYWORDS) + r")(?![\w'’])"
)
# The decision region: the first paragraph, bounded so huge inputs stay cheap.
_MAX_REGION = 600
_MAX_SCAN = 200_000
# How much of the text after the decisive paragraph may still stop its approval.
_MAX_LATER = 2_000


def read_decision(new_text: str, subject: str | None) -> Decision:
    """The decision carried by ``new_text``, or by a quick-reply ``subject`` and body."""
    try:
        if not isinstance(new_text, str) or not isinstance(subject, str | None):
            raise ReplyError("new_text must be str and subject str or None")
        # Each reply's paragraphs are split once for all the rules that read them.
        forget_splits()
        quick = read_quick_reply(new_text[:_MAX_SCAN], subject, read_typed)
        if quick is None:
            return read_typed(new_text)
        # A "not approved" anywhere the lawyer wrote, even below a "-- " line that the
        # notes reader sets aside as a signature, vetoes the link's approval.
        approving = quick.kind is DecisionKind.APPROVAL or quick.answer == "yes"
        if approving and has_negated_approval(new_text[:_MAX_SCAN]):
            return _unclear(quick, quick.because)
        return quick
    except ReplyError:
        raise
    except Exception as exc:  # the contract: nothing but ReplyError escapes
        raise ReplyError(f"cannot read decision: {type(exc).__name__}") from exc


def read_typed(new_text: str) -> Decision:
    """The decision the lawyer typed: the first paragraph, read as a whole."""
    text = new_text[:_MAX_SCAN]
    region = decision_region(text)
    found = words(region)
    if not found:
        return NO_DECISION
    lead, disagree = _lead(region, found)
    if disagree:
        # The tables of the languages it may be in read it differently: no decision.
        sentence = sentence_at(region, 0)
        return Decision(None, sentence, ambiguous=True, because=sentence)
    if lead is None or lead.kind is DecisionKind.QUESTION:
        # "Fragen Sie stattdessen Frau Keller" opens with the word for "question".
        decline = declined(region, found)
        if decline is not None or lead is None:
            return decline or asked(region, found)
    return _settled(text, _with_lead(region, text, found, lead), lead)


def read_led(new_text: str, kind: DecisionKind, size: int, language: str) -> Decision:
    """The reading of a reply whose first ``size`` words the caller read as ``kind`` in
    ``language`` (the proposed action's own verb: "Pay it.", "Bitte buchen."), with every
    rule that can stop an approval applied as to any other."""
    text = new_text[:_MAX_SCAN]
    region = decision_region(text)
    lead = Lead(kind, None, "action_verb", size, language, readers=(language,))
    return _settled(text, _with_lead(region, text, words(region), lead), lead)


def _settled(text: str, decision: Decision, lead: Lead) -> Decision:
    """A decision read from the first paragraph, as what comes after it leaves it."""
    approving = decision.kind is DecisionKind.APPROVAL or decision.answer == "yes"
    if approving and has_negated_approval(text):
        return _unclear(decision, decision.because)
    if approving and (later := _stopped_later(text, lead)) is not None:
        return _unclear(decision, later)
    if approving:
        # "Approved.\n\nOnly sign for Acme GmbH.": a later paragraph that adds something is
        # read as the notes under an APPROVE link are; it is a condition, never dropped.
        # A question there is one more thing to answer, not a veto ("Can you send me the
        # signed copy?"); it is carried with the conditions.
        stop, added = read_after_approval(_paragraphs(text)[1], questions_stop=False)
        if stop is not None:
            return _unclear(decision, stop)
        # A list the approval's sentence introduced ("subject to:") was read already.
        new = [a for a in added if (list_item(a) or a) not in decision.conditions]
        if new:
            return replace(decision, conditions=(*decision.conditions, *new)[:50])
    return decision


def decision_region(text: str) -> str:
    """The first paragraph of the answer, after an optional greeting line."""
    return _paragraphs(text)[0]


def _paragraphs(text: str) -> tuple[str, str]:
    """The decisive paragraph (bounded) and what the lawyer wrote after it, quotes left out."""
    lines = [line for line in text[:_MAX_SCAN].split("\n") if not line.lstrip().startswith(">")]
    while lines and not lines[0].strip():
        lines.pop(0)
    # A greeting line, and a second one ("佐藤さん" then "お疲れ様です。").
    for _ in range(2):
        if not (lines and is_greeting(lines[0][:200])):
            break
        lines.pop(0)
        while lines and not lines[0].strip():
            lines.pop(0)
    region: list[str] = []
    for line in lines:
        if not line.strip():
            break
        region.append(line)
    first = without_preamble("\n".join(region))
    # A first paragraph longer than the bound goes on in what follows it.
    after = first[_MAX_REGION:] + "\n" + "\n".join(lines[len(region) :])
    return first[:_MAX_REGION], after[:_MAX_LATER].strip()


def _lead(region: str, found: list[Word]) -> tuple[Lead | None, bool]:
    """What opens the paragraph, and whether the tables it was read with disagree."""
    neutral = _NEUTRAL.match(region)
    if neutral is not None:
        keyword = neutral.group(1)
        size = len(words(keyword))
        return Lead(NEUTRAL_KEYWORDS[keyword], None, "keyword", size, "und"), False
    # Every table of the script first: where none reads anything, no detector is needed.
    leads = {
        code: lead for code in script_languages(region) if (lead := leading(region, found, code))
    }
    if not leads:
        return None, False
    first_end = next(iter(sentence_spans(region)), (0, len(region)))[1]
    languages = reading_languages(region[:first_end], region)
    lead, disagree = agreed([leads[code] for code in languages if code in leads])
    # "det er i orden" approves in Danish and Norwegian: the hold-backs of both apply.
    return (replace(lead, readers=tuple(leads)) if lead else None), disagree


def _stopped_later(text: str, lead: Lead) -> str | None:
    """What the paragraphs after the decisive one say against its approval: a hold-back,
    a refusal, a retraction, a proviso or another decision ("Approved.\n\nDon't sign yet
    though."; Outlook's HTML, one paragraph per line, splits "Approved" from "but not
    before the DPA is signed" the same way). The approval is then no decision: the first
    paragraph was not the lawyer's last word, and a proviso there is not read as a
    condition, so the approval cannot stand without it."""
    later = _paragraphs(text)[1]
    found = words(later)
    if not found:
        return None
    languages = veto_languages(later, lead)
    stop = (
        taken_back(later, found, 0)
        or held_back(later, found, 0, languages)
        or refused(later, found, 0, languages)
    )
    if stop is not None:
        return stop
    if kinds_in(later, found) & {DecisionKind.REJECTION, DecisionKind.DECLINE}:
        return later[:300]
    for start, end in sentence_spans(later):
        sentence = words(later[start:end])
        if any(
            phrase_at(sentence, i, merged_index("provisos")) for i in range(min(3, len(sentence)))
        ):
            return later[start:end].strip()[:300]
    return None


def reading_languages(first_sentence: str, region: str) -> tuple[str, ...]:
    """The opening sentence's language; where it is too short to tell, the paragraph's,
    if that one is clear; otherwise every table language of its script. A language the
    detector cannot tell from another (Danish and Bokmål) brings that one with it: the
    tables that read something must agree on it."""
    candidates = identify(first_sentence)
    if len(candidates) > 1 and len(region) > len(first_sentence):
        whole = identify(region)
        if len(whole) == 1 and whole[0] in candidates:
            return with_kin(whole)
    return with_kin(candidates)


def veto_languages(region: str, lead: Lead) -> tuple[str, ...]:
    """Every language a sentence of the paragraph may be in, the reading's first."""
    seen = [lead.language] if lead.language != "und" else []
    seen += [code for code in lead.readers if code not in seen]
    for start, end in sentence_spans(region):
        seen += [code for code in with_kin(identify(region[start:end])) if code not in seen]
    return tuple(seen)


def _unclear(decision: Decision, because: str | None) -> Decision:
    return Decision(
        None, decision.trigger, ambiguous=True, read_from=None, because=because,
        language=decision.language,
    )  # fmt: skip


def _with_lead(region: str, text: str, found: list[Word], lead: Lead) -> Decision:
    size = max(lead.size, 1)
    trigger = region[found[0].start : found[size - 1].end] if lead.size else region.strip()[:200]
    spans = sentence_spans(region)
    first_end = next((end for _, end in spans if end > found[size - 1].start), len(region))
    because = sentence_at(region, found[0].start)
    language = None if lead.language == "und" else lead.language
    decision = Decision(
        lead.kind, trigger, read_from=None if lead.answer else lead.read_from, because=because,
        answer=lead.answer,
        language=language,
    )  # fmt: skip
    if lead.kind is not DecisionKind.QUESTION and is_question(region[:first_end]):
        # "Approve the NDA as it stands?": a question about the decision, not the decision.
        return asked(region, found)
    kinds = kinds_in(region, found)
    if lead.kind is not None:
        kinds.add(lead.kind)
    elif lead.answer == "yes":
        kinds.add(DecisionKind.APPROVAL)
    if DecisionKind.APPROVAL in kinds and kinds & {DecisionKind.REJECTION, DecisionKind.DECLINE}:
        return _unclear(decision, because)
    if lead.kind is not DecisionKind.APPROVAL and lead.answer != "yes":
        # A rejection, a "no", a question: none can act on the proposed action.
        return decision
    return _approval(region, text, found, lead, decision, first_end)


def _approval(
    region: str, text: str, found: list[Word], lead: Lead, decision: Decision, first_end: int
) -> Decision:
    size = max(lead.size, 1)
    carried: tuple[str, ...] = ()
    if sets_condition(region[:first_end]):
        # "..., forudsat at skødet er tinglyst. Ellers venter vi.": the condition's other
        # branch, or one more condition, is not a hold-back of the approval.
        region, carried = without_branches(region, first_end)
        found = words(region)
    stop = (
        taken_back(region, found, size)
        or asks(region)
        or held_back(region, found, lead.size, veto_languages(region, lead))
        or refused(region, found, lead.size, veto_languages(region, lead))
        or (_yes_continuation(region, found, lead, first_end) if lead.answer == "yes" else None)
        or (_go_ahead_continuation(region, found, lead, first_end))
    )
    if stop is not None:
        return _unclear(decision, stop)
    if lead.size and negated(found, 0, size, None, first_end, exempt_positions(found)):
        return _unclear(decision, decision.because)
    if lead.condition is not None:
        return replace(decision, conditions=(lead.condition, *carried))
    reading = read_conditions(region, text, first_end, found[size - 1].end)
    if reading.unmet:
        return _unclear(decision, decision.because)
    if decision.trigger == "APPROVE WITH CONDITIONS" and not reading.conditions:
        # The keyword promises conditions: without them it is not a bare approval.
        return _unclear(decision, decision.trigger)
    if reading.conditions:
        return replace(decision, conditions=(*reading.conditions, *carried)[:50])
    # "Approved for two years.", "Approved from Monday.", "I approve the form.": the rest of
    # the approval's own sentence, unless it adds nothing ("Approved, thanks!"), is what
    # was approved, so it is the approval's condition rather than dropped.
    tail = region[found[size - 1].end : first_end].strip(_TAIL_PUNCTUATION)
    said = (tail[:MAX_CONDITION_CHARS],) if tail and not adds_nothing(tail) else ()
    said = (*said, *carried)
    rest = region[first_end:].strip()
    if not rest:
        return replace(decision, conditions=said)
    # "Approved. The cap stays at EUR 10,000.": what the paragraph says after the approval
    # is read as notes under the APPROVE link are, so a limit is never dropped.
    stop, added = read_after_approval(rest)
    if stop is not None:
        return _unclear(decision, stop)
    return replace(decision, conditions=(*said, *added)[:50])


# What may stand between the approval word and the rest of its sentence ("Approved -
# 24 months", "Approved, thanks!").
_TAIL_PUNCTUATION = " \t\n*_.,;:!-–—()。、，：！"


def _go_ahead_continuation(
    region: str, found: list[Word], lead: Lead, first_end: int
) -> str | None:
    """ "Adelante, consigue la aprobación del consejo", "Действуйте: запросите ...": a
    go-ahead whose sentence goes on names the step that goes ahead, unless what follows
    agrees, sets a condition or thanks ("Go ahead, but only up to 50k", "Go ahead, thanks")."""
    if tuple(word.text for word in found[: lead.size]) not in LEXICON.needs_stop:
        return None
    rest = [word for word in found[lead.size :] if word.start < first_end]
    if find(rest, merged_index("courtesies")) is not None:
        return None
    return _yes_continuation(region, found, lead, first_end)


def _yes_continuation(region: str, found: list[Word], lead: Lead, first_end: int) -> str | None:
    """After a yes, the rest of its sentence must agree ("Yes, fine", "Yes, go ahead") or
    set a condition ("Yes, provided ..."): "Yes, I'll look at it" is not a decision."""
    rest = [word for word in found[lead.size :] if word.start < first_end]
    if not rest:
        return None
    # The languages the sentence may be in: "Ja, passt so." is German or Danish.
    for code in veto_languages(region[:first_end], lead):
        for key in ("agreement", "approve_phrases", "provisos", "conditions"):
            if find(rest, own_index(code, key)) is not None:
                return None
    approving = [p for p, kind, _ in LEXICON.leading if kind == "approve"]
    if any(matches_at(rest, i, p) for i in range(len(rest)) for p in approving):
        return None
    return sentence_at(region, found[0].start)
