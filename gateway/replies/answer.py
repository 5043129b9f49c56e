"""A yes or no answers the ask; it decides the proposed action only where they agree.

"Yes." to "May I sign the NDA?" (action: "Sign the NDA ...") approves signing it;
"Yes." to "Should I hold the payment until ...?" (action: "Transfer EUR 48,500")
approves nothing: it answers a different question. The ask is taken to be whether
to carry out the action only when it is unmistakable, and otherwise the answer is
kept as it is (``answer`` on the decision, no decision):

- the request asks exactly one question, and it is a plain permission question
  ("May I / Can we / Shall I / Should we <verb> ...?", "Do you approve / agree to
  <verb>ing ...?", "Is it OK to <verb> ...?", "Am I allowed to <verb> ...?");
- that question holds no "or", no negation and no "first"/"until"/"before" step;
- its verb is the proposed action's first word, and they share a further word (with no
  proposed action, the question itself names what a yes allows).

Requests are written by agents, in English; an ask in any other form is not read.
"""

from __future__ import annotations

import re
from dataclasses import replace

from gateway.replies.kinds import Ask, Decision, DecisionKind

_PERMISSION = re.compile(
    r"^(?:(?:so|then|ok|okay),?\s+)?(?:"
    r"(?:may|can|could|shall|should)\s+(?:i|we|the\s+agent)\s+(?:now\s+|please\s+|go\s+ahead\s+and\s+)?"
    r"|(?:do|would)\s+you\s+(?:approve|agree\s+to|authori[sz]e|allow\s+(?:me|us)\s+to)\s+"
    r"|is\s+it\s+(?:ok|okay|alright|all\s+right|fine)\s+(?:for\s+(?:me|us)\s+)?to\s+"
    r"|(?:am\s+i|are\s+we)\s+(?:allowed|authori[sz]ed|cleared|permitted)\s+to\s+"
    r")(?P<verb>[a-z]+)(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_WORD = re.compile(r"[a-z0-9]+")
# Words in the ask that make a yes mean something other than "do it".
_NOT_PLAIN = frozenset(
    [
        "or",
        "not",
        "never",
        "n't",
        "without",
        "instead",
        "first",
        "until",
        "before",
        "unless",
        "hold",
        "wait",
        "stop",
        "cancel",
        "delay",
        "postpone",
        "refrain",
    ]
)
_STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "to",
        "of",
        "for",
        "in",
        "on",
        "at",
        "by",
        "with",
        "and",
        "as",
        "it",
        "its",
        "this",
        "that",
        "their",
        "our",
        "your",
        "my",
        "we",
        "i",
        "you",
        "me",
        "us",
        "them",
        "they",
        "is",
        "are",
        "be",
        "from",
        "via",
        "into",
    ]
)


def decide_answer(decision: Decision, ask: Ask, *, whether_to_act: bool | None = None) -> Decision:
    """A yes/no answer made a decision where the ask is, unmistakably, whether to carry
    out the proposed action; otherwise the decision as read (the answer kept as data).

    ``whether_to_act``: the caller's reading of the ask in any language (see
    ``actions.asks_to_act``); by default, the English reading here.

    An approval (or a yes) whose own words forbid the action ("Approved, but do not
    sign", the action being "Sign the NDA") is no decision, whatever it was read from.
    """
    approving = decision.kind is DecisionKind.APPROVAL or decision.answer == "yes"
    forbidding = _forbids_action(decision, ask) if approving else None
    if forbidding is not None:
        return Decision(
            None, decision.trigger, ambiguous=True, because=forbidding, language=decision.language
        )
    if decision.kind is not None or decision.answer is None or decision.ambiguous:
        return decision
    asked = asks_whether_to_act(ask) if whether_to_act is None else whether_to_act
    if not asked:
        return decision
    kind = DecisionKind.APPROVAL if decision.answer == "yes" else DecisionKind.REJECTION
    conditions = decision.conditions if kind is DecisionKind.APPROVAL else ()
    return replace(decision, kind=kind, read_from="yes_no", conditions=conditions)


def asks_whether_to_act(ask: Ask) -> bool:
    """The request's one question is whether to carry out the proposed action."""
    action = _words(ask.proposed_action or "")
    sentences = _sentences(ask.request[:4000])
    questions = [q for q in sentences if q.endswith("?")]
    if len(questions) == 1:
        match = _PERMISSION.match(questions[0])
    elif not questions:
        # "Please confirm the transfer of EUR 120,000.00 to ...": a request for a yes.
        confirming = [c for c in sentences if _CONFIRM.match(c)]
        match = _CONFIRM.match(confirming[0]) if len(confirming) == 1 else None
    else:
        return False
    if match is None:
        return False
    asked = match.group(0)
    verb = match.group("verb").casefold()
    rest = _words(match.group("rest"))
    if _NOT_PLAIN & {verb, *rest} or "n't" in asked.casefold():
        return False
    if not action:
        # No action proposed apart from the question: "May I deploy release 42?" asks
        # exactly whether to do what it names.
        return ask.proposed_action is None or not ask.proposed_action.strip()
    if _stem(verb) != _stem(action[0]):
        return False
    shared = ({w for w in rest if w not in _STOPWORDS}) & set(action[1:])
    return bool(shared)


# "Please confirm (that I may) the transfer of ...", "Can you approve the payment ...".
_CONFIRM = re.compile(
    r"^(?:(?:so|then|ok|okay),?\s+)?(?:please\s+|kindly\s+|(?:can|could|would)\s+you\s+)?"
    r"(?:confirm|approve|authori[sz]e|ok|okay|sign\s+off\s+on)\s+(?:that\s+)?"
    r"(?:(?:i|we|the\s+agent)\s+(?:can|may|should|am\s+allowed\s+to|are\s+allowed\s+to)\s+)?"
    r"(?:the\s+|a\s+|our\s+)?(?P<verb>[a-z]+)(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
# Full stops that do not end a sentence: in abbreviations ("ref.", "No.", "Dr."), amounts
# and decimals ("EUR 48,500.00"), and a label that opens the ask ("Item 3:", "Case 4:").
# Alike in shape to replies.patterns' quote markers (compiled alternations), not in
# meaning: these words are what ends a sentence of the ask, read only here.
_ABBREVIATION = re.compile(
    r"\b(?:ref|refs|no|nos|nr|approx|e\.g|i\.e|etc|vs|v|inc|ltd|co|corp|art|sec|para|cf|"
    r"p|pp|dr|mr|mrs|ms|prof|st|fig|vol|ch|cl|incl|excl|resp|dept|est)\.",
    re.IGNORECASE,
)
_INSIDE_NUMBER = re.compile(r"(?<=\d)([.,])(?=\d)")
_LABEL = re.compile(
    r"^(?:item|case|question|point|matter|topic|q|re|ref)\s*[\w.#-]{0,12}\s*[:)\-–]\s*",
    re.IGNORECASE,
)
_KEPT_DOT, _KEPT_COMMA = "\x00", "\x01"


def _sentences(text: str) -> list[str]:
    """The ask's sentences, each without a label that opens it."""
    kept = _ABBREVIATION.sub(lambda m: m.group(0)[:-1] + _KEPT_DOT, text)
    kept = _INSIDE_NUMBER.sub(lambda m: _KEPT_DOT if m.group(1) == "." else _KEPT_COMMA, kept)
    found = []
    for part in re.split(r"(?<=[.?!])\s+|\n+", kept):
        sentence = part.replace(_KEPT_DOT, ".").replace(_KEPT_COMMA, ",").strip()
        sentence = _LABEL.sub("", sentence).strip()
        if sentence:
            found.append(sentence)
    return found


def _forbids_action(decision: Decision, ask: Ask) -> str | None:
    """The lawyer's words that say not to do the action's verb, if any."""
    action = _words(ask.proposed_action or "")
    if not action or len(action[0]) < 3:
        return None
    verb = re.compile(
        rf"\b(?:not|never|n't|no)\s+(?:\w+\s+){{0,2}}{re.escape(_stem(action[0]))}\w*",
        re.IGNORECASE,
    )
    for said in (*decision.conditions, decision.because or ""):
        if verb.search(said.replace("’", "'").replace("n't", " n't")):
            return said[:300]
    return None


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _stem(word: str) -> str:
    """ "sign" / "signing" / "signs": the same verb."""
    for ending in ("ing", "ment", "al", "es", "s", "ed"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word
