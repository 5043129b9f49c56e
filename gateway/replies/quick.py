"""The quick-reply links: their keyword decides, and what is typed under the prompt counts.

A link opens a mail with the subject "APPROVE [HFA-00001]" and a body of the
keyword, a blank line and a prompt ("Notes (optional):"). The keyword and the
reference tag are language-neutral; they are the only subject that decides
anything. What the lawyer types under the prompt is read with the same rules as
typed text: under APPROVE, a limit or any other instruction makes the approval
conditional (the notes are its conditions), and a contradiction, a "NOT", a
hold-back or a question makes it no decision. A blank APPROVE WITH CONDITIONS
promises conditions it does not give: no decision.

The keywords and prompts are those of ``gateway.outbound.quickreply`` (a test
keeps the two in step); this package may not import the outbound side.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from gateway.i18n import in_every_language
from gateway.replies.empty import is_no_answer
from gateway.replies.holdback import (
    asks,
    held_back,
    held_back_in_script,
    refused,
    stands_as_is,
    taken_back,
)
from gateway.replies.kinds import Decision, DecisionKind
from gateway.replies.language import identify, with_kin
from gateway.replies.lexicon import LEXICON
from gateway.replies.negation import exempt_positions, has_negated_approval, is_negator
from gateway.replies.phrases import find, merged_index, own_index, phrase_at
from gateway.replies.statement import kinds_in
from gateway.replies.words import Word, list_item, sentence_spans, words

WITH_CONDITIONS = "APPROVE WITH CONDITIONS"
NEUTRAL_KEYWORDS: dict[str, DecisionKind] = {
    WITH_CONDITIONS: DecisionKind.APPROVAL,
    "APPROVE": DecisionKind.APPROVAL,
    "REJECT": DecisionKind.REJECTION,
    "QUESTION": DecisionKind.QUESTION,
    "DECLINE": DecisionKind.DECLINE,
    "I'M ON IT": DecisionKind.ACKNOWLEDGE,
    "I’M ON IT": DecisionKind.ACKNOWLEDGE,
}
# The first line of each link's prompt, under which the lawyer types.
PROMPTS: dict[str, str] = {
    "APPROVE": "Notes (optional):",
    WITH_CONDITIONS: "Conditions (one per line, each starting with -):",
    "REJECT": "Reasons, or what to do instead:",
    "QUESTION": "What I need to know first:",
    "DECLINE": "Why (optional):",
    "I'M ON IT": "I have read this and expect to answer by:",
}
_SUBJECT = re.compile(
    r"^\s*(?:(?:re|aw|antw|antwort|sv|vs|r|rif|ref|réf|tr|wg|fw|fwd|odp|ynt|回复|答复)\s?"
    r"(?:\[\d{1,4}\])?\s?[:：]\s*)*"
    r"(" + "|".join(re.escape(k) for k in NEUTRAL_KEYWORDS) + r")"
    r"\s*\[[A-Za-z][A-Za-z0-9]{0,15}-\d{1,12}\]\s*$",
    re.IGNORECASE,
)
_UNFILLED = frozenset({"-", "*", "•"})
_MAX_NOTES = 4000

# Reads typed text (``decision.read_typed``), handed in to keep the modules acyclic.
ReadTyped = Callable[[str], Decision]


def subject_keyword(subject: str | None) -> str | None:
    """The keyword of a quick-reply subject ("Re: APPROVE [HFA-00001]"), else None."""
    match = _SUBJECT.match((subject or "")[:300])
    return _canonical(match.group(1)) if match else None


def _canonical(keyword: str) -> str:
    upper = keyword.upper().replace("’", "'")
    return upper if upper in NEUTRAL_KEYWORDS else keyword


def read_quick_reply(new_text: str, subject: str | None, read_typed: ReadTyped) -> Decision | None:
    """The decision of a quick-reply answer, or None when the reply is not one."""
    from_subject = subject_keyword(subject)
    lines = new_text.split("\n")
    first = next((n for n, line in enumerate(lines) if line.strip()), None)
    opening = lines[first].strip().strip("*_ ").replace("’", "'") if first is not None else ""
    in_body = opening if opening in NEUTRAL_KEYWORDS else None
    rest = "\n".join(lines[first + 1 :]) if in_body and first is not None else new_text
    if from_subject is None:
        # A body whose first line is the keyword alone (the link's body, or the lawyer
        # typing it so): what follows is read as the notes under it.
        if in_body is None:
            return None
        keyword = in_body
    elif in_body is not None and in_body != from_subject:
        # The link's first line overwritten with another keyword: which one was meant?
        said = f"{in_body} / {from_subject}"
        return Decision(None, said, ambiguous=True, because=said)
    else:
        keyword = from_subject
    return _read_notes(keyword, _notes(rest, keyword), read_typed)


@cache
def _prompts_of(keyword: str) -> tuple[str, ...]:
    """The keyword's prompt as each language writes it, longest first, so that no prompt
    is cut short by another that begins it."""
    prompt = PROMPTS.get(keyword)
    return tuple(sorted(in_every_language(prompt), key=len, reverse=True)) if prompt else ()


def _notes(rest: str, keyword: str) -> str:
    """What the lawyer typed under the prompt, without the prompt and its empty items.

    The prompt is recognised in every language the gateway writes emails in: the
    link's email was written in the lawyer's, which may have changed since.
    """
    prompts = _prompts_of(keyword.replace("’", "'"))
    kept: list[str] = []
    for line in rest.split("\n"):
        stripped = line.strip()
        said = next((p for p in prompts if stripped.startswith(p)), None)
        if said is not None:
            stripped = stripped[len(said) :].strip()
        if stripped in _UNFILLED or not stripped:
            if kept and kept[-1]:
                kept.append("")
            continue
        kept.append(stripped)
    return _without_contact_block("\n".join(kept).strip())[:_MAX_NOTES]


# A line of contact details, and a line of a name or title beside them.
_CONTACT = re.compile(r"\+?\d[\d ()./-]{6,}\d|\S+@\S+|https?://\S+|www\.\S+|\|")
_NAME = re.compile(r"^(?:(?:[A-ZÀ-Þ][\w.'’,-]*|&|[TMFE]:)\s*){1,5}$")


def _without_contact_block(notes: str) -> str:
    """Notes without a trailing signature the client kept ("Jane Smith / Partner | Smith
    & Co / +49 30 ..."): a last paragraph of names, titles, numbers and addresses only."""
    paragraphs = notes.split("\n\n")
    while len(paragraphs) > 1 or (paragraphs and paragraphs[0] and _is_contact(paragraphs[0])):
        if not _is_contact(paragraphs[-1]):
            break
        paragraphs.pop()
    return _without_signed_name("\n\n".join(paragraphs).strip())


# A first name or two signed under the notes ("Fine as proposed.\nDana").
_SIGNED_NAME = re.compile(r"^[A-ZÀ-Þ][^\W\d_]{1,20}(?:\s[A-ZÀ-Þ][^\W\d_.]{0,20}\.?)?$")


def _without_signed_name(notes: str) -> str:
    lines = notes.rstrip().split("\n")
    said = [line for line in lines[:-1] if line.strip()]
    if not said or not said[-1].rstrip().endswith((".", "!", ",")):
        return notes
    name = lines[-1].strip()
    if not _SIGNED_NAME.match(name) or is_no_answer(f"Thanks\n{name}") is False:
        return notes
    return "\n".join(lines[:-1]).rstrip()


def _is_contact(paragraph: str) -> bool:
    """Contact details (a number, an address, "|"), with names or titles beside them, and
    nothing that could say no ("NOT Tom" is a note)."""
    lines = [line.strip() for line in paragraph.split("\n") if line.strip()]
    if not lines or len(lines) > 8 or not any(_CONTACT.search(line) for line in lines):
        return False
    if any(is_negator(word.text, everywhere=True) for word in words(paragraph)):
        return False
    return all(_NAME.match(_CONTACT.sub(" ", line).strip(" :,.") or "X") for line in lines)


def _read_notes(keyword: str, notes: str, read_typed: ReadTyped) -> Decision:
    kind = NEUTRAL_KEYWORDS[keyword]
    tapped = Decision(kind, keyword, read_from="quick_reply", because=keyword)
    if keyword == WITH_CONDITIONS:
        return _with_conditions(notes)
    if not notes:
        return tapped
    # Something was typed: the reading is the keyword's with the typed text ("keyword").
    typed_over = Decision(kind, keyword, read_from="keyword", because=f"{keyword}: {notes[:300]}")
    if is_no_answer(notes):
        return typed_over
    typed = read_typed(notes)
    if kind is not DecisionKind.APPROVAL:
        # Reasons under REJECT, DECLINE, QUESTION: they cannot approve.
        approving = DecisionKind.APPROVAL in kinds_in(notes, words(notes))
        if approving or typed.kind is DecisionKind.APPROVAL or typed.answer == "yes":
            return Decision(None, keyword, ambiguous=True, because=typed.because or notes[:300])
        return typed_over
    return _approve_notes(notes, typed)


def _with_conditions(notes: str) -> Decision:
    lines = [line for line in notes.split("\n") if line.strip()]
    listed = [item for line in lines if (item := list_item(line))]
    # The listed items are the conditions; without a list, every line but a heading.
    items = listed or [line for line in lines if not line.rstrip().endswith((":", "："))]
    if not items:
        return Decision(None, WITH_CONDITIONS, ambiguous=True, because=WITH_CONDITIONS)
    stop = _stop(notes, negation_vetoes=False) or next(filter(None, map(_shouts_no, items)), None)
    if stop is not None:
        return Decision(None, WITH_CONDITIONS, ambiguous=True, because=stop)
    return Decision(
        DecisionKind.APPROVAL, WITH_CONDITIONS, conditions=tuple(i[:2000] for i in items[:50]),
        # Quoted on the receipt as the decision word read, like APPROVE's notes below.
        read_from="keyword", because=f"{WITH_CONDITIONS}: {notes[:300]}",
    )  # fmt: skip


def _approve_notes(notes: str, typed: Decision) -> Decision:
    if typed.ambiguous or typed.kind not in (None, DecisionKind.APPROVAL):
        return Decision(None, "APPROVE", ambiguous=True, because=typed.because or notes[:300])
    stop, added = read_after_approval(notes)
    if stop is not None:
        return Decision(None, "APPROVE", ambiguous=True, because=stop)
    if typed.kind is DecisionKind.APPROVAL:
        # "Approved, go ahead." typed over the link's body: the typed approval, as read.
        return typed
    conditions = typed.conditions or added
    return Decision(
        DecisionKind.APPROVAL, "APPROVE", conditions=conditions[:50],
        read_from="keyword", because=f"APPROVE: {notes[:300]}",
    )  # fmt: skip


def read_after_approval(
    notes: str, *, questions_stop: bool = True
) -> tuple[str | None, tuple[str, ...]]:
    """What is typed beside an approval (notes under APPROVE, or the sentences after a
    typed "Approved."): what makes it no decision, else the sentences that add something
    to it, which are its conditions ("The cap stays at EUR 10,000.")."""
    stop = _stop(notes, negation_vetoes=True, questions_stop=questions_stop)
    if stop is not None:
        return stop, ()
    sentences = [s for start, end in sentence_spans(notes) if (s := notes[start:end].strip())]
    added: list[str] = []
    for number, sentence in enumerate(sentences):
        if adds_nothing(sentence):
            continue
        if number and _SIGNED_NAME.match(sentence) and adds_nothing(sentences[number - 1]):
            # "Best,\nAnna": signed, not said.
            continue
        added.append(sentence)
    return None, tuple(added)


def adds_nothing(sentence: str) -> bool:
    """Thanks, a greeting, or a bare agreement ("Fine as proposed.", "Sounds good!",
    "Thanks for the quick turnaround."): no condition. Whatever follows an agreement or a
    thanks must itself add nothing: "OK, two years.", "Agreed, kill it." and "Thanks, two
    years max." add something, and it is a condition or no decision, never dropped."""
    if is_no_answer(sentence) or stands_as_is(sentence):
        return True
    found = words(sentence)
    if not found:
        return True
    if any(word.text.isdigit() for word in found) or find(found, merged_index("conditions")):
        return False
    if phrase_at(found, 0, merged_index("thanks_for")) and not any(
        is_negator(word.text, everywhere=True) for word in found
    ):
        # "Thanks for the quick turnaround.": thanks, whatever it is for.
        return True
    courtesy = phrase_at(found, 0, merged_index("courtesies"))
    if courtesy is not None and _rest_adds_nothing(sentence, found, courtesy[1], name=True):
        return True
    for code in identify(sentence):
        for key in ("agreement", "approve_phrases", "yes"):
            hit = phrase_at(found, 0, own_index(code, key))
            if hit is not None and _rest_adds_nothing(sentence, found, hit[1], name=False):
                return True
    return False


def _rest_adds_nothing(sentence: str, found: list[Word], end: int, *, name: bool) -> bool:
    """The words after an opening agreement or thanks: none, a name after thanks
    ("Thanks Dana"), or themselves nothing ("Fine, thanks.", "Good, as proposed.")."""
    if end >= len(found):
        return True
    rest = sentence[found[end].start :]
    if name and _SIGNED_NAME.match(rest.strip(" .!,")):
        return True
    return adds_nothing(rest)


def _stop(notes: str, *, negation_vetoes: bool, questions_stop: bool = True) -> str | None:
    """What in the notes makes the approval no decision."""
    found = words(notes)
    languages = with_kin(identify(notes))
    stop = (
        (asks(notes) if questions_stop else None)
        or taken_back(notes, found, 0)
        or held_back(notes, found, 0, languages)
        or held_back_in_script(notes, found, 0)
        # "Dit keur ik af.": a refusal anywhere in the notes, as after a typed approval.
        or refused(notes, found, 0, languages)
    )
    if stop is not None or not negation_vetoes:
        return stop
    if has_negated_approval(notes):
        return notes.strip()[:300]
    for start, end in sentence_spans(notes):
        sentence = notes[start:end]
        if stands_as_is(sentence):
            # "No changes needed.": its "no" is about the document, not the approval.
            continue
        if re.search(r"\bNOT\b", sentence) or _opens_with_negation(sentence):
            return sentence.strip()[:300]
    return None


def _opens_with_negation(sentence: str) -> bool:
    """ "NOT the full amount", "Do not pay", "Nicht den vollen Betrag": a contradiction.
    A negation later in the sentence is part of a limit ("liability shall not exceed"),
    and so is one that opens a limit ("not more than EUR 50,000", "не более 55 000")."""
    found = words(sentence)
    markers = merged_index("conditions")
    # "Nie widzę przeszkód", "No hay problema": a negation that is itself an approval.
    exempt = exempt_positions(found)
    for position, word in enumerate(found[:3]):
        if position in exempt:
            return False
        if find(found[position : position + 1], markers) is not None:
            return False
        if phrase_at(found, position, merged_index("provisos")) is not None:
            return False
        if is_negator(word.text, everywhere=True) or word.text in LEXICON.negated_forms:
            return True
    return False


def _shouts_no(condition: str) -> str | None:
    """A listed condition that opens with a negation in capitals ("NOT the full amount",
    "NICHT den vollen Betrag"): it contradicts the approval rather than limiting it. A
    negation in lower case is a condition ("no exclusivity", "not more than 50k")."""
    found = words(condition)
    if not found:
        return None
    first = condition[found[0].start : found[0].end]
    negates = is_negator(found[0].text, everywhere=True) or found[0].text in LEXICON.negated_forms
    if negates and len(first) > 1 and first.isupper():
        return condition.strip()[:300]
    return None
