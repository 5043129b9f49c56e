"""Read the lawyer's decision from explicit words at the start of a reply.

A wrong approval is the worst defect this package can have, so every rule errs
towards "no decision" (the agent then reads the text, or asks again):

- The decision word must OPEN the new text (after an optional greeting line)
  or open the subject, as the quick-reply links fill it in ("APPROVE [HFA-1]").
  "I cannot approve", "Not approved" and "Disapprove" therefore never start
  with an approval word.
- Anywhere in the new text or subject, an approval word preceded by a negation
  ("do not approve", "nicht genehmigt", "no aprobado") vetoes any approval.
- An approval and a rejection/decline word in the decision region (the first
  paragraph), or body and subject disagreeing, give no decision.
- A decision word followed by "?" is a question about it, not a decision.
- "yes"/"ja"/"oui"/"sí"/"si"/"jawohl" approve and "no"/"nein"/"non"/"nee" reject
  only as the whole first line or followed by punctuation ("No, use 6 instead
  of 5" rejects; "No problem" and "Non approuvé" decide nothing).
- "close" only counts alone or before "." / "!" ("Close, but change clause 5" is
  not a close).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from gateway.replies.errors import ReplyError


class DecisionKind(enum.StrEnum):
    APPROVAL = "approval"
    REJECTION = "rejection"
    DECLINE = "decline"
    QUESTION = "question"
    CLOSE = "close"
    # "I'M ON IT": read, not answered; the quick-reply link fills it in.
    ACKNOWLEDGE = "acknowledgement"


@dataclass(frozen=True)
class Decision:
    """The decision (None when there is none) and the words that triggered it.

    ``ambiguous`` is set when decision words were found but conflict or are
    negated: the reply is then recorded with no decision, as read but not
    answered either way.
    """

    kind: DecisionKind | None
    trigger: str | None = None
    ambiguous: bool = False


_NO_DECISION = Decision(None)

# Decision phrases, as casefolded token sequences, most specific first.
_PHRASES: tuple[tuple[tuple[str, ...], DecisionKind], ...] = (
    (("i'm", "on", "it"), DecisionKind.ACKNOWLEDGE),
    (("i’m", "on", "it"), DecisionKind.ACKNOWLEDGE),
    (("approval", "granted"), DecisionKind.APPROVAL),
    (("approve",), DecisionKind.APPROVAL),
    (("approved",), DecisionKind.APPROVAL),
    (("genehmigt",), DecisionKind.APPROVAL),
    (("freigegeben",), DecisionKind.APPROVAL),
    (("approuvé",), DecisionKind.APPROVAL),
    (("approuvée",), DecisionKind.APPROVAL),
    (("approuve",), DecisionKind.APPROVAL),
    (("accepté",), DecisionKind.APPROVAL),
    (("acceptée",), DecisionKind.APPROVAL),
    (("aprobado",), DecisionKind.APPROVAL),
    (("aprobada",), DecisionKind.APPROVAL),
    (("apruebo",), DecisionKind.APPROVAL),
    (("goedgekeurd",), DecisionKind.APPROVAL),
    (("akkoord",), DecisionKind.APPROVAL),
    (("reject",), DecisionKind.REJECTION),
    (("rejected",), DecisionKind.REJECTION),
    (("deny",), DecisionKind.REJECTION),
    (("denied",), DecisionKind.REJECTION),
    (("abgelehnt",), DecisionKind.REJECTION),
    (("ablehnen",), DecisionKind.REJECTION),
    (("refusé",), DecisionKind.REJECTION),
    (("refusée",), DecisionKind.REJECTION),
    (("rejeté",), DecisionKind.REJECTION),
    (("rejetée",), DecisionKind.REJECTION),
    (("rechazado",), DecisionKind.REJECTION),
    (("rechazada",), DecisionKind.REJECTION),
    (("rechazo",), DecisionKind.REJECTION),
    (("denegado",), DecisionKind.REJECTION),
    (("afgewezen",), DecisionKind.REJECTION),
    (("afgekeurd",), DecisionKind.REJECTION),
    (("decline",), DecisionKind.DECLINE),
    (("declined",), DecisionKind.DECLINE),
    (("question",), DecisionKind.QUESTION),
    (("frage",), DecisionKind.QUESTION),
    (("pregunta",), DecisionKind.QUESTION),
    (("vraag",), DecisionKind.QUESTION),
    (("closed",), DecisionKind.CLOSE),
    (("close",), DecisionKind.CLOSE),
    (("geschlossen",), DecisionKind.CLOSE),
    (("fermé",), DecisionKind.CLOSE),
    (("cerrado",), DecisionKind.CLOSE),
    (("gesloten",), DecisionKind.CLOSE),
)
_SINGLE_WORDS = {phrase[0]: kind for phrase, kind in _PHRASES if len(phrase) == 1}
# Words that decide only when they stand alone or before punctuation.
_BARE_ANSWERS = {
    "yes": DecisionKind.APPROVAL,
    "ja": DecisionKind.APPROVAL,
    "jawohl": DecisionKind.APPROVAL,
    "oui": DecisionKind.APPROVAL,
    "sí": DecisionKind.APPROVAL,
    "si": DecisionKind.APPROVAL,
    "no": DecisionKind.REJECTION,
    "nein": DecisionKind.REJECTION,
    "non": DecisionKind.REJECTION,
    "nee": DecisionKind.REJECTION,
}
# Stems of approval words, for the negation veto (covers every inflection).
_APPROVAL_STEMS = (
    "approv", "approuv", "genehmig", "freigeg", "freigab", "accepté", "aprob", "aprueb",
    "goedgekeur", "goedkeur", "akkoord", "aprovad", "approvat", "einverstanden",
)  # fmt: skip
_NEGATED_FORMS = ("disapprov", "unapprov", "disallow", "nonapprov", "non-approv")
_NEGATORS = frozenset(
    {
        "not", "never", "no", "cannot", "unable", "neither", "nor", "nicht", "nie", "kein",
        "keine", "keinen", "keiner", "non", "pas", "ne", "jamais", "nunca", "niet", "geen",
        "nooit", "nem", "nao", "não", "нет", "не", "ni", "refuse",
    }
)  # fmt: skip
# How many words a negation may sit before the approval word it negates
# ("I do not think we can approve").
_NEGATION_REACH = 5
_TOKEN = re.compile(r"\w+(?:['’]\w+)*")
_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|dear|good\s+(?:morning|afternoon|evening)|hallo|liebe[rs]?|"
    r"sehr\s+geehrte[rs]?|guten\s+(?:tag|morgen)|bonjour|bonsoir|cher|chère|hola|"
    r"estimad[oa]s?|buenos\s+días|beste|geachte|goedemorgen|ciao|buongiorno)\b[^.!?\n]{0,60}[,!:]?\s*$",
    re.IGNORECASE,
)
_REPLY_PREFIX = re.compile(
    r"^\s*(?:(?:re|aw|antw|antwort|sv|vs|r|rif|ref|réf|tr|wg|fw|fwd|odp|ynt|回复|答复)\s?"
    r"(?:\[\d{1,4}\])?\s?[:：]\s*)+",
    re.IGNORECASE,
)
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
    body = _decision_in(_decision_region(new_text))
    from_subject = _decision_in(_REPLY_PREFIX.sub("", subject or "", count=1)[:_MAX_REGION])
    if body.ambiguous or from_subject.ambiguous:
        return body if body.ambiguous else from_subject
    if body.kind and from_subject.kind and body.kind is not from_subject.kind:
        return Decision(None, f"{body.trigger} / {from_subject.trigger}", ambiguous=True)
    decision = body if body.kind else from_subject
    if decision.kind is DecisionKind.APPROVAL and (
        _has_negated_approval(new_text) or _has_negated_approval(subject or "")
    ):
        return Decision(None, decision.trigger, ambiguous=True)
    return decision


def _decision_region(text: str) -> str:
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


def _decision_in(region: str) -> Decision:
    tokens = list(_TOKEN.finditer(region))
    if not tokens:
        return _NO_DECISION
    words = [token.group().casefold() for token in tokens]
    decision = _leading_decision(region, tokens, words)
    if decision.kind is None:
        return _NO_DECISION
    # Every decision word in the region, ignoring approvals that are negated
    # ("Rejected - not approved" is a rejection).
    kinds = {decision.kind}
    for index, word in enumerate(words):
        kind = _SINGLE_WORDS.get(word)
        if kind is None and _opens_line(region, tokens[index]):
            # Inline answers: "Yes, German law is fine.\nNo, make it 24 months."
            kind = _BARE_ANSWERS.get(word)
        if kind is DecisionKind.APPROVAL and _negated_at(words, index):
            continue
        if kind is not None:
            kinds.add(kind)
    if DecisionKind.APPROVAL in kinds and kinds & {DecisionKind.REJECTION, DecisionKind.DECLINE}:
        return Decision(None, decision.trigger, ambiguous=True)
    return decision


def _leading_decision(region: str, tokens: list[re.Match[str]], words: list[str]) -> Decision:
    # Only punctuation may come before the decision word ("**Approved**").
    if region[: tokens[0].start()].strip(" \t*_\"'“”‘’«»([-–—"):
        return _NO_DECISION
    for phrase, kind in _PHRASES:
        size = len(phrase)
        if tuple(words[:size]) != phrase:
            continue
        end = tokens[size - 1].end()
        after = region[end:].lstrip(" \t*_")
        if after.startswith("?"):
            return _NO_DECISION
        if phrase == ("close",) and not after.startswith(("\n", ".", "!", "[")) and after:
            # "Close, but ..." / "Close to done" mean nearly, not "close the request".
            return _NO_DECISION
        return Decision(kind, region[tokens[0].start() : end])
    answer = _BARE_ANSWERS.get(words[0])
    if answer is not None:
        after = region[tokens[0].end() :].lstrip(" \t*_")
        if _stands_alone(after):
            return Decision(answer, tokens[0].group())
    return _NO_DECISION


def _opens_line(region: str, token: re.Match[str]) -> bool:
    line_start = region.rfind("\n", 0, token.start()) + 1
    return not region[line_start : token.start()].strip(" \t*_-–—>") and _stands_alone(
        region[token.end() :].lstrip(" \t*_")
    )


def _stands_alone(after: str) -> bool:
    """The word ends its line, or punctuation other than "?" follows it."""
    return after == "" or after.startswith(("\n", ".", "!", ",", ";", ":", "-", "–", "—", "["))


def _has_negated_approval(text: str) -> bool:
    """Some approval word is negated, or a look-alike such as "disapprove" appears."""
    words = [token.group().casefold() for token in _TOKEN.finditer(text[:_MAX_SCAN])]
    for index, word in enumerate(words):
        if word.startswith(_NEGATED_FORMS):
            return True
        if word.startswith(_APPROVAL_STEMS) and _negated_at(words, index):
            return True
    return False


def _negated_at(words: list[str], index: int) -> bool:
    window = words[max(0, index - _NEGATION_REACH) : index]
    return any(_is_negator(before) for before in window)


def _is_negator(word: str) -> bool:
    return word in _NEGATORS or word.endswith(("n't", "n’t"))
