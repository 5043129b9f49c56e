"""The rest of a conditional approval's paragraph: the condition's other branch, and more
conditions, not vetoes.

A lawyer who approves on a condition often says in the next sentence what happens if it
fails, or adds a step: "Du må gerne overføre, forudsat at skødet er tinglyst. Ellers
venter vi.", "Ok, men bara om de står för kostnaderna. Annars nej.", "Oui si le client
paie. Confirmez avec lui avant." Read as any other sentence after an approval, "venter"
(wait), "nej" or "avant" (before) would hold the approval back, and the lawyer's answer
would be lost. Here, only after a first sentence that itself sets a condition, such a
sentence is set aside from the stops and carried as one more condition.

It is not set aside (it still stops the approval) when it asks, takes the approval back,
decides the other way, or speaks of the lawyer ("call me first", "ruf mich vorher an"):
those wait for the lawyer, whatever the condition says.
"""

from __future__ import annotations

from gateway.replies.negation import is_negator
from gateway.replies.phrases import find, merged_index, phrase_at
from gateway.replies.statement import kinds_in
from gateway.replies.words import Word, is_question, list_item, sentence_spans, words

# Words that make a sentence a condition: a proviso, a limit, an obligation, a first step.
_ADDS = ("provisos", "limits", "conditions", "obligations", "first_steps", "closing_steps")
# Words that make a sentence wait for the lawyer or call the approval off.
_WAITS = ("first_person", "retractions", "lone_retractions", "deferrals")
# "Not before.", "Ikke før.": the condition said again, in two or three words.
_RESTATED_WORDS = 3


def sets_condition(sentence: str) -> bool:
    """The approval's own sentence limits it ("provided", "only if", "bis zu", "以内")."""
    found = words(sentence)
    return any(find(found, merged_index(key)) is not None for key in ("provisos", "limits"))


def without_branches(region: str, first_end: int) -> tuple[str, tuple[str, ...]]:
    """``region`` with the sentences after ``first_end`` that carry the condition on
    blanked out (positions kept), and those sentences."""
    if region[:first_end].rstrip().endswith((":", "：")):
        return region, ()  # "subject to:" and its list, read as the list's conditions
    kept = list(region)
    carried: list[str] = []
    for start, end in sentence_spans(region):
        if start < first_end:
            continue
        sentence = region[start:end]
        if list_item(sentence.strip()) is not None:
            break
        if _carries_condition(sentence):
            carried.append(sentence.strip())
            kept[start:end] = " " * (end - start)
        else:
            break  # only the sentences right after the condition carry it on
    return "".join(kept), tuple(carried)


def _carries_condition(sentence: str) -> bool:
    found = words(sentence)
    if not found or is_question(sentence):
        return False
    if _opens_with(found, "otherwise") or _opens_with(found, "if_words"):
        return True
    if any(find(found, merged_index(key)) is not None for key in _WAITS):
        return False
    if kinds_in(sentence, found):
        return False
    if len(found) <= _RESTATED_WORDS and find(found, merged_index("first_steps")) is not None:
        return True
    if any(is_negator(word.text, everywhere=True) for word in found):
        return False
    if find(found, merged_index("holdbacks")) is not None:
        return False
    return any(find(found, merged_index(key)) is not None for key in _ADDS)


def _opens_with(found: list[Word], key: str) -> bool:
    return phrase_at(found, 0, merged_index(key)) is not None
