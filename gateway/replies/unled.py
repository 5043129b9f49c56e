"""What a paragraph says when no decision word opens it: a decline said naturally ("Not
my area", "ask Tom instead"), a question, or a promise to answer later (I'M ON IT).
"""

from __future__ import annotations

from gateway.replies.holdback import asks, sentence_at
from gateway.replies.kinds import NO_DECISION, Decision, DecisionKind
from gateway.replies.language import identify, script_languages, with_kin
from gateway.replies.phrases import find, own_index
from gateway.replies.statement import kinds_in
from gateway.replies.words import Word


def declined(region: str, found: list[Word]) -> Decision | None:
    """A decline said naturally ("Not my area", "ask Tom instead"), with no approval."""
    decline = _said(region, found, "decline_phrases", DecisionKind.DECLINE)
    if decline is None or DecisionKind.APPROVAL in kinds_in(region, found):
        return None
    return decline


def _said(region: str, found: list[Word], key: str, kind: DecisionKind) -> Decision | None:
    """The first phrase of the table ``key`` in a language the paragraph is in, read as
    ``kind``; the detector is asked only when a table of the script has one."""
    if not any(find(found, own_index(code, key)) for code in script_languages(region)):
        return None
    for code in with_kin(identify(region)):
        hit = find(found, own_index(code, key))
        if hit is not None:
            said = region[found[hit[0]].start : found[hit[1] - 1].end]
            because = sentence_at(region, found[hit[0]].start)
            return Decision(kind, said, read_from="phrase", because=because, language=code)
    return None


def asked(region: str, found: list[Word]) -> Decision:
    """No decision opens the paragraph: a question if it asks one, else a promise to
    answer later read as I'M ON IT."""
    question = asks(region)
    if question is not None:
        return Decision(DecisionKind.QUESTION, question, read_from="phrase", because=question)
    return _deferred(region, found) or NO_DECISION


def _deferred(region: str, found: list[Word]) -> Decision | None:
    """ "Je regarde ça demain et je vous reviens": the lawyer has read it and will answer
    later. Taken for an answer, it would tell the agent the request was answered; it is
    read as I'M ON IT instead (reviewed, reminders pause), in the paragraph's languages."""
    return _said(region, found, "deferrals", DecisionKind.ACKNOWLEDGE)
