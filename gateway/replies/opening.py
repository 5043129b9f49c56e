"""How an answer opens before it answers: a greeting line, and a sentence that only
thanks or says the lawyer has read it.

Both are set aside before the decisive paragraph is read (``decision._paragraphs``), so
"Hi Tom,\n\nThanks for flagging. Go ahead and pay it." is read from "Go ahead". A line
or sentence with anything that decides, asks, negates, holds back or sets a condition is
never set aside: a reply is only ever read from less than the lawyer wrote when what is
left out says nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from gateway.replies.language import script_languages
from gateway.replies.lexicon import LEXICON
from gateway.replies.negation import is_negator
from gateway.replies.phrases import find, merged_index
from gateway.replies.quick import adds_nothing
from gateway.replies.statement import bare_at, kinds_in, leading
from gateway.replies.words import is_question, sentence_spans, words

_GREETING = re.compile(
    # "Hi Tom,", "Анна, добрый день!": a greeting, maybe after the name it greets.
    r"^\s*(?:[A-ZÀ-ÞĀ-ŽА-ЯІЇЄҐ][\w.'’-]*(?:\s+[A-ZÀ-ÞĀ-ŽА-ЯІЇЄҐ][\w.'’-]*){0,2},\s*)?(?:"
    + "|".join(re.escape(g) for g in LEXICON.greetings)
    + r")(?!\w)[^.!?\n。！？]{0,60}[,!:。、，！：]?\s*$",
    re.IGNORECASE,
)
# The name alone as the greeting line ("Sanne,", "小王：", "佐藤さん"), unless it is a word
# that decides ("Approved,", "OK:").
_NAME_GREETING = re.compile(
    r"^\s*[A-ZÀ-ÞĀ-ŽА-ЯІЇЄҐ][\w.'’-]*(?:\s+[A-ZÀ-ÞĀ-ŽА-ЯІЇЄҐ][\w.'’-]*){0,2}\s*[,:：，]\s*$"
    r"|^\s*[\u3400-\u9fff]{1,3}(?:さん|様|先生|律师|老师)\s*[:：，,]?\s*$"
    r"|^\s*[\u3400-\u9fff]{1,3}\s*[:：]\s*$"
)


@lru_cache(maxsize=512)
def is_greeting(line: str) -> bool:
    """A line that only greets ("Hi Tom,", "Анна, добрый день!", "小王：")."""
    if _GREETING.match(line):
        return True
    if not _NAME_GREETING.match(line):
        return False
    found = words(line)
    if find(found, merged_index("agreement")) is not None:
        return False  # "OK:", "Fine,"
    return not kinds_in(line, found) and not any(bare_at(line, found, i) for i in range(len(found)))


# A preamble is a short sentence: a longer one may say what no table knows.
_MAX_PREAMBLE_WORDS = 12
_PREAMBLE_STOPS = ("holdbacks", "deferrals", "retractions", "provisos", "conditions", "contingent")


# A reply's paragraphs are split several times by the rules that read them: read once.
@lru_cache(maxsize=512)
def without_preamble(paragraph: str) -> str:
    """The paragraph without an opening sentence that only thanks or says the lawyer has
    read it ("Thanks for flagging. Go ahead and pay it.", "Kävin CV:n läpi. Hyväksyn.",
    "内容は確認済みです。支払って大丈夫です。"): the answer is the sentence after it. A sentence
    with anything that decides, asks, negates, holds back or sets a condition stays."""
    spans = sentence_spans(paragraph)
    if len(spans) < 2:
        return paragraph
    start, end = spans[0]
    sentence = paragraph[start:end]
    found = words(sentence)
    if not found or len(found) > _MAX_PREAMBLE_WORDS or is_question(sentence):
        return paragraph
    if any(is_negator(word.text, everywhere=True) for word in found):
        return paragraph
    if kinds_in(sentence, found) or any(bare_at(sentence, found, i) for i in range(len(found))):
        return paragraph
    if any(find(found, merged_index(key)) is not None for key in _PREAMBLE_STOPS):
        return paragraph
    if any(leading(sentence, found, code) for code in script_languages(sentence)):
        return paragraph
    if find(found, merged_index("reviewed")) is None and not adds_nothing(sentence):
        return paragraph
    return paragraph[end:].lstrip()
