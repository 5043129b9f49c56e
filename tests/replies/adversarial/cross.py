"""7. One language's words must not decide another language's text.

Each trial is written in its own language, with a word that decides in another
language of the same script: Chinese and Japanese share ideographs, the
Latin-script languages share short words (Polish "tak" is yes, Danish "tak" is
thanks, Czech "tak" is "so"; Italian "prima" is "before", Dutch "prima" is
"great"; Finnish "en" is "I do not", Swedish "en" is "a"), Russian and
Ukrainian share Cyrillic ("так" is Ukrainian yes, Russian "so").
"""

from __future__ import annotations

from tests.replies.adversarial.trial import DEFERRED, NONE, Trial

QUESTION = ("question",)


def _cross(language: str, text: str, expect: tuple[str | None, ...] = NONE) -> Trial:
    return Trial("cross_language", language, text, expect)


CROSS_LANGUAGE = [
    # Chinese and Japanese.
    _cross("ja", "問題ありません。", (None, "approval")),
    _cross("ja", "問題は署名者の権限です。確認してください。"),
    _cross("ja", "同意しかねます。", (None, "rejection")),
    _cross("ja", "承認は来週になります。"),
    _cross("ja", "同意書の写しを先に送ってください。"),
    _cross("ja", "了解しました。明日確認します。", DEFERRED),
    _cross("ja", "承認者は誰ですか？", (None, *QUESTION)),
    _cross("ja", "質問：署名者は誰ですか？", QUESTION),
    _cross("zh", "好的，我看一下。", DEFERRED),
    _cross("zh", "请问这个合同的期限是多久？", QUESTION),
    _cross("zh", "同意书我还没收到，先别签。", (None, "rejection")),
    # Latin-script languages.
    _cross("da", "Tak."),
    _cross("da", "Tak for det."),
    _cross("da", "Tak, jeg kigger på det i morgen.", DEFERRED),
    _cross("cs", "Tak, pošlete mi to ještě jednou."),
    _cross("cs", "Tak jo, podívám se na to zítra.", DEFERRED),
    _cross("nl", "Prima, dank je."),
    _cross("nl", "Prima, ik kijk er morgen naar.", DEFERRED),
    _cross("it", "Prima di firmare, mandami la bozza."),
    _cross("es", "Si firman antes el DPA, adelante.", (None, "conditional")),
    _cross("fr", "Si vous voulez, on en parle demain."),
    _cross("it", "Si firma la settimana prossima, dopo la riunione."),
    _cross("sv", "Tack, jag tittar på det.", DEFERRED),
    _cross("sv", "En fråga: vem skriver under för dem?", (None, *QUESTION)),
    _cross("fi", "En ole vielä ehtinyt lukea sitä.", DEFERRED),
    _cross("pl", "Dobrze, ale najpierw zadzwoń do mnie."),
    _cross("cs", "Prosím, zavolejte mi před podpisem."),
    _cross("nb", "Takk, jeg ser på det i morgen.", DEFERRED),
    _cross("en", "No problem, I'll have a look tomorrow.", DEFERRED),
    _cross("de", "Gut, ich melde mich morgen.", DEFERRED),
    # Russian and Ukrainian.
    _cross("ru", "Так, давайте сначала это обсудим."),
    _cross("ru", "Так что пока не подписывайте.", (None, "rejection")),
    _cross("ru", "Хорошо, посмотрю завтра.", DEFERRED),
    _cross("uk", "Добре, але спочатку зателефонуйте мені."),
    _cross("uk", "Питання: хто підписує з їхнього боку?", QUESTION),
    _cross("ru", "Вопрос: кто подписывает с их стороны?", QUESTION),
]
