"""Replies built to trap the decision reader, the way lawyers write them.

Each family is one way typed text was seen to approve what the lawyer never
approved (issue families 1-7), plus natural answers per language that a
careful reader has no doubt about. ``expect`` lists the readings that are
right: ``None`` is no decision, ``"conditional"`` an approval with conditions.

The same trials drive ``bench/decisions.py`` (false approvals, natural-answer
counts per language) and the table tests in ``test_adversarial.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.replies import Ask

# The asks of the trial: whether to carry out the action ("May I sign ..." / "Sign ..."),
# and asks whose yes/no does not say whether to carry out the proposed action.
NDA = Ask(
    "May I sign the mutual NDA with Helix Bio AG as sent? It is their template; "
    "governing law Swiss, term 3 years.",
    "Sign the NDA via DocuSign as Acme's authorised signatory and return it to bd@helix-bio.test.",
)
HOLD = Ask(
    "Should I hold the payment to Baltic Parts OÜ until their new bank details are "
    "verified by phone?",
    "Transfer EUR 48,500.00 to the new IBAN DE89 3704 0044 0532 0130 00 in today's payment run.",
)
PAY = Ask(
    "Please confirm the payment of EUR 62,000.00 to Kraftwerk Logistics GmbH for invoice "
    "KL-2026-443 before I release it.",
    "Release payment of EUR 62,000.00 to Kraftwerk Logistics GmbH in today's run.",
)
DPA = Ask(
    "Can we send the customer list (1,200 records with names and private emails) to our "
    "new CRM vendor before the DPA is signed?",
    "Export table customers_2026 as CSV and upload it to the vendor's import portal today.",
)
SEND = Ask(
    "May I send the signed contract to the counterparty today?",
    "Send the signed contract to Helix Bio AG by email.",
)

NONE: tuple[str | None, ...] = (None,)
APPROVAL = ("approval",)
CONDITIONAL = ("conditional",)
REJECTION = ("rejection",)
DECLINE = ("decline",)


@dataclass(frozen=True)
class Trial:
    family: str
    language: str
    text: str
    expect: tuple[str | None, ...] = NONE
    subject: str | None = None
    ask: Ask = NDA


def _family(
    family: str, rows: dict[str, list[str]], expect: tuple[str | None, ...] = NONE
) -> list[Trial]:
    return [
        Trial(family, language, text, expect) for language, texts in rows.items() for text in texts
    ]


# 1. A yes-word followed by an acknowledgement, a deferral or a call first.
YES_CONTINUATION = _family(
    "yes_continuation",
    {
        "en": [
            "Yes, I'll look at it tomorrow morning.",
            "Yes. Will review by Friday.",
            "Yes, we need to talk about this first. Call me at 3pm.",
            "Yes, got it - will come back to you.",
            "Yes, let me read it tonight.",
            "Yep, on my list for tomorrow.",
            "Yes - received, I'll have a look after my hearing.",
            "Yes. Let's discuss on Monday.",
            "Yes, I've seen it. Give me until Thursday.",
            "Yes, noted. I'll revert shortly.",
            "Yes, will do a review later today.",
            "Yes, I'm looking into it.",
        ],
        "de": [
            "Ja, ich schaue es mir morgen an.",
            "Ja, bitte vorher Rücksprache mit mir.",
            "Ja, ich melde mich später dazu.",
            "Ja, habe es gesehen, ich prüfe das bis Freitag.",
            "Ja, rufen Sie mich bitte vorher an.",
            "Ja. Lassen Sie uns morgen kurz telefonieren.",
            "Jawohl, ich sehe es mir heute Abend an.",
            "Ja, erhalten. Ich komme darauf zurück.",
            "Ja, aber erst nach meinem Termin.",
            "Ja, ich muss das noch mit Herrn Weber besprechen.",
        ],
        "fr": [
            "Oui, je regarde ça demain matin.",
            "Oui, mais appelez-moi d'abord.",
            "Oui, bien reçu, je reviens vers vous.",
            "Oui, je vous rappelle cet après-midi.",
            "Oui. J'y jette un œil ce soir.",
            "Oui, il faut qu'on en parle avant.",
            "Oui, je dois d'abord en discuter avec Claire.",
            "Oui, laissez-moi vérifier.",
            "Oui, je vous réponds d'ici vendredi.",
            "Oui, je le lirai demain.",
        ],
        "es": [
            "Sí, lo reviso mañana.",
            "Sí, pero llámame antes.",
            "Sí, recibido, te digo algo luego.",
            "Sí. Lo miro esta tarde.",
            "Sí, tenemos que hablarlo primero.",
            "Sí, déjame consultarlo con Marta.",
            "Sí, te contesto el viernes.",
            "Sí, lo estoy revisando.",
            "Sí, primero necesito ver la versión final.",
            "Sí, lo vemos en la reunión del lunes.",
        ],
        "it": [
            "Sì, lo guardo domani mattina.",
            "Sì, ma prima chiamami.",
            "Sì, ricevuto, ti faccio sapere.",
            "Sì, ne parliamo lunedì.",
            "Sì. Lo leggo stasera.",
            "Sì, devo prima sentire Marco.",
            "Sì, ti rispondo entro venerdì.",
            "Sì, lasciami controllare.",
            "Sì, lo sto esaminando.",
            "Sì, prima vorrei vedere la bozza.",
        ],
        "nl": [
            "Ja, ik kijk er morgen naar.",
            "Ja, maar bel me eerst even.",
            "Ja, ontvangen, ik kom erop terug.",
            "Ja. Ik lees het vanavond.",
            "Ja, we moeten dit eerst bespreken.",
            "Ja, ik moet het nog met Pieter afstemmen.",
            "Ja, ik laat het je vrijdag weten.",
            "Ja, laat me het even nakijken.",
            "Ja, ik ben ermee bezig.",
            "Ja, eerst wil ik de definitieve versie zien.",
        ],
        "pl": [
            "Tak, przejrzę to jutro rano.",
            "Tak, ale najpierw proszę do mnie zadzwonić.",
            "Tak, otrzymałem, odezwę się później.",
            "Tak. Przeczytam to dziś wieczorem.",
            "Tak, musimy najpierw o tym porozmawiać.",
            "Tak, muszę to jeszcze skonsultować z Anną.",
            "Tak, odpowiem do piątku.",
            "Tak, daj mi to sprawdzić.",
            "Tak, zajmuję się tym.",
            "Tak, najpierw chcę zobaczyć ostateczną wersję.",
        ],
        "pt": [
            "Sim, vejo isso amanhã de manhã.",
            "Sim, mas ligue-me antes.",
            "Sim, recebido, depois dou notícias.",
            "Sim. Leio hoje à noite.",
            "Sim, precisamos de falar sobre isto primeiro.",
            "Sim, tenho de confirmar com a Ana.",
            "Sim, respondo até sexta-feira.",
            "Sim, deixe-me verificar.",
            "Sim, estou a analisar.",
            "Sim, primeiro quero ver a versão final.",
        ],
        "ja": [
            "はい、明日の朝確認します。",
            "はい、まず電話で相談させてください。",
            "はい、拝見しました。後ほどご連絡します。",
            "はい。今晩読みます。",
            "はい、先に田中さんに確認します。",
            "はい、金曜日までに回答します。",
            "はい、検討します。",
            "はい、最終版を見てから判断します。",
            "はい、少しお時間をください。",
            "はい、打ち合わせで話しましょう。",
        ],
        "zh": [
            "是的，我明天上午看一下。",
            "是的，但请先给我打电话。",
            "是的，收到，稍后回复你。",
            "是的。我今晚看。",
            "是的，我们需要先讨论一下。",
            "是的，我要先跟王律师确认。",
            "是的，周五前答复。",
            "是的，让我再核实一下。",
            "是的，我正在审阅。",
            "是的，我想先看最终版本。",
        ],
        "sv": ["Ja, jag tittar på det i morgon.", "Ja, ring mig först."],
        "da": ["Ja, jeg kigger på det i morgen.", "Ja, ring til mig først."],
        "nb": ["Ja, jeg ser på det i morgen.", "Ja, ring meg først."],
        "cs": ["Ano, podívám se na to zítra.", "Ano, ale nejdřív mi zavolejte."],
        "ru": ["Да, посмотрю завтра утром.", "Да, но сначала позвоните мне."],
        "uk": ["Так, подивлюся завтра зранку.", "Так, але спочатку зателефонуйте мені."],
        "fi": ["Kyllä, katson sen huomenna.", "Kyllä, mutta soita minulle ensin."],
    },
)

# 2. "Go ahead and <another step> first": the action is not what goes ahead.
GO_AHEAD_FIRST = _family(
    "go_ahead_first",
    {
        "en": [
            "Go ahead and send me their latest draft first; I want to see the liability clause.",
            "Go ahead and set up a call with their counsel first.",
            "Go ahead and ask them for the redline.",
            "Go ahead and check the signatory's authority first.",
            "Please go ahead and get the board minutes first.",
            "Go ahead and circulate it to finance for comments.",
            "Proceed with the KYC checks first, then come back to me.",
            "Go ahead with the due diligence call first.",
            "Go ahead and request the bank confirmation letter.",
            "Go ahead and book a slot with Anna.",
        ],
        "de": [
            "Bitte fortfahren und zuerst die Vollmacht prüfen.",
            "Bitte fortfahren mit der Prüfung der Gegenseite, dann melden Sie sich.",
            "Legen Sie los und holen Sie zuerst die Bankbestätigung ein.",
        ],
        "fr": [
            "Allez-y et envoyez-moi d'abord leur dernière version.",
            "Allez-y, organisez d'abord un appel avec leur avocat.",
            "Procédez d'abord aux vérifications KYC.",
        ],
        "es": [
            "Adelante, pero primero envíame su último borrador.",
            "Adelante y organiza primero una llamada con su abogado.",
            "Proceda primero con la verificación de poderes.",
        ],
        "it": [
            "Procedi pure e mandami prima l'ultima bozza.",
            "Vai avanti e organizza prima una call con il loro legale.",
            "Procedete prima con le verifiche KYC.",
        ],
        "nl": [
            "Ga je gang en stuur me eerst hun laatste versie.",
            "Ga door en plan eerst een call met hun advocaat.",
        ],
        "pl": [
            "Proszę kontynuować i najpierw przesłać mi ostatnią wersję.",
            "Działaj, ale najpierw umów rozmowę z ich prawnikiem.",
        ],
        "pt": [
            "Pode avançar e envie-me primeiro a última versão.",
            "Prossiga primeiro com a verificação dos poderes.",
        ],
        "ja": [
            "進めてください。ただし、まず最新版を送ってください。",
            "まず先方の弁護士との電話を設定してから進めてください。",
        ],
        "zh": ["请继续，但先把他们的最新草稿发给我。", "可以继续，先安排和对方律师通个电话。"],
    },
)

# 3. The approach approved, the action held back: nothing is approved yet.
HOLDBACK = _family(
    "holdback",
    {
        "en": [
            "I approve of the approach, but don't sign yet.",
            "Approved in principle, but I need to see the final version before anyone signs.",
            "Yes, but let me check with Anna first.",
            "Approved, but not before the DPA is signed.",
            "Agreed in principle. Please hold until I confirm.",
            "Approved - but wait for my go before sending.",
            "Go ahead, but not until Finance confirms the budget.",
            "Approved, pending my review of the final draft.",
            "Approve, but let me talk to the partner first.",
            "I agree with the approach; hold the signature for now.",
        ],
        "de": [
            "Im Prinzip genehmigt, aber bitte noch nicht unterschreiben.",
            "Genehmigt, aber erst nach Rücksprache mit Frau Keller.",
            "Grundsätzlich einverstanden, aber bitte noch warten.",
            "Freigegeben, aber nicht vor Unterzeichnung der AVV.",
        ],
        "fr": [
            "Approuvé sur le principe, mais ne signez pas encore.",
            "D'accord en principe, mais attendez mon feu vert.",
            "Approuvé, mais pas avant la signature du DPA.",
        ],
        "es": [
            "Aprobado en principio, pero no firmes todavía.",
            "De acuerdo, pero no antes de que firmen el DPA.",
            "Aprobado, pero espera a que hable con Marta.",
        ],
        "it": [
            "Approvato in linea di principio, ma non firmate ancora.",
            "Va bene, ma non prima della firma del DPA.",
        ],
        "nl": [
            "In principe akkoord, maar nog niet tekenen.",
            "Akkoord, maar niet voordat de verwerkersovereenkomst getekend is.",
        ],
        "pl": [
            "Zasadniczo zgoda, ale jeszcze nie podpisujcie.",
            "Zatwierdzam, ale nie przed podpisaniem umowy powierzenia.",
        ],
        "pt": [
            "Aprovado em princípio, mas não assinem ainda.",
            "Aprovado, mas só depois de eu falar com a Ana.",
        ],
        "ja": [
            "原則として承認しますが、まだ署名しないでください。",
            "承認します。ただし、私が最終版を確認するまで署名は待ってください。",
        ],
        "zh": ["原则上同意，但先不要签。", "我同意，但在DPA签署之前不要执行。"],
    },
)


def _asked(language: str, text: str, ask: Ask, expect: tuple[str | None, ...]) -> Trial:
    return Trial("yes_no_ask", language, text, expect, ask=ask)


# 4. A bare yes/no answers the ask; it decides only where the ask is whether to act.
YES_NO_ASK = [
    _asked("en", "Yes.", HOLD, NONE),
    _asked("en", "No.", HOLD, NONE),
    _asked("en", "Yes", HOLD, NONE),
    _asked("de", "Ja.", HOLD, NONE),
    _asked("fr", "Oui.", HOLD, NONE),
    _asked("es", "Sí.", HOLD, NONE),
    _asked("ja", "はい。", HOLD, NONE),
    _asked("zh", "是的。", HOLD, NONE),
    _asked("pl", "Tak.", HOLD, NONE),
    _asked("pt", "Sim.", HOLD, NONE),
    _asked("it", "Sì.", HOLD, NONE),
    _asked("nl", "Nee.", HOLD, NONE),
    _asked("en", "Yes.", PAY, NONE),
    _asked("en", "Yes.", DPA, NONE),
    _asked("en", "No.", DPA, NONE),
    _asked(
        "en",
        "Yes.",
        Ask(
            "Should I sign the engagement letter or wait for the revised fee schedule?",
            "Sign the engagement letter.",
        ),
        NONE,
    ),
    _asked(
        "en",
        "Yes.",
        Ask("Shall I wait with the filing until Monday?", "File the trademark application today."),
        NONE,
    ),
    _asked(
        "en",
        "Yes.",
        Ask("Do you want me to cancel the transfer?", "Transfer EUR 10,000 to Acme Ltd."),
        NONE,
    ),
    _asked(
        "en",
        "Yes.",
        Ask("Can I pay the invoice, or should I dispute it first?", "Pay invoice 443 in full."),
        NONE,
    ),
    _asked("en", "Yes.", Ask("Should I not sign this yet?", "Sign the NDA."), NONE),
    _asked("en", "Yes.", NDA, APPROVAL),
    _asked("en", "No.", NDA, REJECTION),
    _asked("de", "Ja.", NDA, APPROVAL),
    _asked("de", "Nein.", NDA, REJECTION),
    _asked("fr", "Oui.", NDA, APPROVAL),
    _asked("en", "Yes.", SEND, APPROVAL),
    _asked("en", "Yes, please.", SEND, APPROVAL),
]


def _quick(language: str, keyword: str, body: str, expect: tuple[str | None, ...]) -> Trial:
    return Trial("quick_notes", language, body, expect, subject=f"{keyword} [HFA-00027]", ask=PAY)


_APPROVE = "APPROVE\n\nNotes (optional):\n"
_WITH = "APPROVE WITH CONDITIONS\n\nConditions (one per line, each starting with -):\n"

# 5. What is typed under a quick-reply prompt is part of the answer.
QUICK_NOTES = [
    _quick("en", "APPROVE", _APPROVE + "only if the amount stays under EUR 50,000.\n", CONDITIONAL),
    _quick(
        "en",
        "APPROVE",
        "APPROVE\n\nNotes (optional): NOT the full amount - pay only EUR 49,600 for the 8 "
        "pallets received.\n",
        NONE,
    ),
    _quick("en", "APPROVE", _APPROVE, APPROVAL),
    _quick("en", "APPROVE WITH CONDITIONS", _WITH + "- \n- \n", NONE),
    _quick(
        "en",
        "APPROVE WITH CONDITIONS",
        _WITH + "- pay only after the goods receipt is complete\n- send me the remittance advice\n",
        CONDITIONAL,
    ),
    _quick("de", "APPROVE", _APPROVE + "max. EUR 50.000\n", CONDITIONAL),
    _quick("en", "APPROVE", _APPROVE + "Do not pay without a call-back first.\n", NONE),
    _quick("en", "APPROVE", _APPROVE + "Wait - I meant REJECT.\n", NONE),
    _quick("fr", "APPROVE", _APPROVE + "seulement jusqu'à 50 000 EUR\n", CONDITIONAL),
    _quick("en", "APPROVE", _APPROVE + "Thanks!\n", APPROVAL),
    _quick(
        "en",
        "REJECT",
        "REJECT\n\nReasons, or what to do instead:\nPay only EUR 49,600 instead.\n",
        REJECTION,
    ),
    _quick("en", "APPROVE", _APPROVE + "Is this the final invoice?\n", NONE),
    _quick("en", "APPROVE", _APPROVE + "up to 50k only\n", CONDITIONAL),
    _quick(
        "de", "APPROVE", _APPROVE + "nur für Namen und dienstliche E-Mail-Adressen\n", CONDITIONAL
    ),
    _quick("es", "APPROVE", _APPROVE + "solo hasta 50.000 EUR\n", CONDITIONAL),
    _quick("en", "APPROVE", _APPROVE + "but don't pay yet\n", NONE),
    _quick(
        "en",
        "APPROVE WITH CONDITIONS",
        _WITH + "- liability shall not exceed EUR 1M\n- Swiss law applies\n",
        CONDITIONAL,
    ),
    _quick("en", "APPROVE WITH CONDITIONS", _WITH + "- let me check with Anna first\n", NONE),
    _quick("en", "DECLINE", "DECLINE\n\nWhy (optional):\nI am conflicted.\n", DECLINE),
    _quick(
        "en",
        "APPROVE",
        "APPROVE\n\nNotes (optional): only if the amount stays under EUR 50,000.\n",
        CONDITIONAL,
    ),
    _quick("de", "APPROVE", _APPROVE + "Nicht den vollen Betrag, nur EUR 49.600.\n", NONE),
    _quick("en", "APPROVE", "", APPROVAL),
    _quick("en", "APPROVE WITH CONDITIONS", "", NONE),
]

# 6. An approval taken back in the same paragraph: interjection + no + wait, or another language.
SELF_CORRECTION = _family(
    "self_correction",
    {
        "en": [
            "Approved. Oh no, wait - don't sign yet.",
            "Approved - hmm, no, hang on, let me think again.",
            "Approved. Ah no, wait.",
            "Go ahead. Actually, hang on a sec.",
            "Approved... no, wait, the cap is wrong.",
            "Approved. Erm, no. Let me think this over.",
            "Yes, approved. Oh no - hold on, wrong thread.",
            "Approved. Nein, warte!",
            "Approved. Non, attendez.",
            "Agreed. Hmm no, let me reconsider.",
            "Approved - uh, no, one moment.",
        ],
        "de": [
            "Genehmigt. Ach nein, Moment.",
            "Freigegeben - äh, nein, warten Sie.",
            "Einverstanden. Oh nein, lass mich nochmal nachdenken.",
            "Genehmigt. No, wait.",
        ],
        "fr": [
            "Approuvé. Ah non, attendez.",
            "Approuvé... euh non, laissez-moi réfléchir.",
            "Approuvé. No, wait.",
        ],
        "es": ["Aprobado. Ay no, espera.", "Aprobado... eh, no, déjame pensarlo."],
        "it": ["Approvato. Ah no, aspetta.", "Approvato... ehm no, fammi pensare."],
        "nl": [
            "Goedgekeurd. O nee, wacht even.",
            "Akkoord... eh nee, laat me er nog even over nadenken.",
        ],
        "pl": ["Zatwierdzam. Och nie, czekaj.", "Zatwierdzam... yyy nie, muszę to przemyśleć."],
        "pt": ["Aprovado. Ah não, espera.", "Aprovado... hmm não, deixa-me pensar melhor."],
        "ja": [
            "承認します。あ、いや、ちょっと待ってください。",
            "承認します。いや、やっぱり待って。",
        ],
        "zh": ["批准。哦不，等一下。", "同意。不对，让我再想想。"],
    },
)

# 7. One language's word must not decide another language's text.
CROSS_LANGUAGE = [
    Trial("cross_language", "ja", "問題ありません。", (None, "approval")),
    Trial("cross_language", "ja", "問題は署名者の権限です。確認してください。"),
    Trial("cross_language", "ja", "同意しかねます。", (None, "rejection")),
    Trial("cross_language", "ja", "承認は来週になります。"),
    Trial("cross_language", "da", "Tak."),
    Trial("cross_language", "da", "Tak for det."),
    Trial("cross_language", "nl", "Prima, dank je."),
    Trial("cross_language", "es", "Si firman antes el DPA, adelante.", (None, "conditional")),
    Trial("cross_language", "zh", "好的，我看一下。"),
    Trial("cross_language", "sv", "Tack, jag tittar på det."),
    Trial("cross_language", "zh", "请问这个合同的期限是多久？", ("question",)),
    Trial("cross_language", "ja", "質問：署名者は誰ですか？", ("question",)),
    Trial("cross_language", "it", "Prima di firmare, mandami la bozza."),
]


def _natural(language: str, rows: dict[str, list[str]]) -> list[Trial]:
    expect = {
        "approval": APPROVAL,
        "rejection": REJECTION,
        "decline": DECLINE,
        "conditional": CONDITIONAL,
    }
    return [
        Trial("natural", language, text, expect[kind])
        for kind, texts in rows.items()
        for text in texts
    ]


# Natural answers a careful reader has no doubt about, per language.
NATURAL = [
    *_natural(
        "en",
        {
            "approval": [
                "No objection.",
                "Fine by me.",
                "OK to sign.",
                "Looks good, you can sign.",
            ],
            "rejection": [
                "Please don't sign this.",
                "Not in this form.",
                "That's out of the question.",
                "I cannot agree to this.",
            ],
            "decline": [
                "Not my area, sorry - try the tax team.",
                "I am conflicted on this one.",
                "Please ask Tom instead.",
                "I'm not the right person for this, try tax.",
            ],
            "conditional": [
                "OK to sign, subject to the cap staying at 12 months.",
                "Fine, as long as liability shall not exceed EUR 1M.",
                "No objection, provided the DPA is signed first.",
            ],
        },
    ),
    *_natural(
        "de",
        {
            "approval": [
                "Keine Einwände.",
                "Von meiner Seite passt das.",
                "Sie können unterschreiben.",
                "Passt so, bitte unterschreiben.",
            ],
            "rejection": [
                "Bitte nicht unterschreiben.",
                "Nicht in dieser Form.",
                "Das kommt nicht in Frage.",
                "Dem kann ich nicht zustimmen.",
            ],
            "decline": [
                "Nicht mein Gebiet, bitte an die Steuerabteilung.",
                "Ich bin hier befangen.",
                "Fragen Sie bitte stattdessen Frau Keller.",
            ],
            "conditional": [
                "Einverstanden, sofern die Haftung 1 Mio. EUR nicht übersteigt.",
                "Sie können unterschreiben, vorausgesetzt die AVV ist unterschrieben.",
                "Keine Einwände, solange Schweizer Recht gilt.",
            ],
        },
    ),
    *_natural(
        "fr",
        {
            "approval": [
                "Aucune objection.",
                "Ça me va.",
                "Vous pouvez signer.",
                "C'est bon pour moi, vous pouvez signer.",
            ],
            "rejection": [
                "Ne signez pas.",
                "Pas sous cette forme.",
                "C'est hors de question.",
                "Je ne peux pas être d'accord.",
            ],
            "decline": [
                "Ce n'est pas mon domaine, voyez avec le fiscaliste.",
                "Je suis en conflit d'intérêts sur ce dossier.",
                "Demandez plutôt à Claire.",
            ],
            "conditional": [
                "Vous pouvez signer, sous réserve que la responsabilité ne dépasse pas 1 M EUR.",
                "D'accord, à condition que le DPA soit signé.",
                "Aucune objection, pourvu que le droit suisse s'applique.",
            ],
        },
    ),
    *_natural(
        "es",
        {
            "approval": [
                "Sin objeciones.",
                "Por mí, bien.",
                "Puedes firmar.",
                "Me parece bien, puedes firmarlo.",
            ],
            "rejection": [
                "No lo firmes.",
                "Así no.",
                "Eso está fuera de discusión.",
                "No puedo estar de acuerdo.",
            ],
            "decline": [
                "No es mi área, consulta con fiscal.",
                "Tengo un conflicto de intereses.",
                "Pregúntale mejor a Marta.",
            ],
            "conditional": [
                "De acuerdo, siempre que la responsabilidad no supere 1 millón de euros.",
                "Puedes firmar, con la condición de que se firme el DPA.",
                "Sin objeciones, siempre y cuando se aplique el derecho suizo.",
            ],
        },
    ),
    *_natural(
        "it",
        {
            "approval": [
                "Nessuna obiezione.",
                "Per me va bene.",
                "Puoi firmare.",
                "Va bene, puoi procedere alla firma.",
            ],
            "rejection": [
                "Non firmare.",
                "Non in questa forma.",
                "È fuori discussione.",
                "Non posso essere d'accordo.",
            ],
            "decline": [
                "Non è il mio campo, chiedi al fiscale.",
                "Sono in conflitto di interessi.",
                "Chiedi piuttosto a Marco.",
            ],
            "conditional": [
                "Va bene, purché la responsabilità non superi 1 milione di euro.",
                "Puoi firmare, a condizione che il DPA sia firmato.",
                "Nessuna obiezione, a patto che si applichi il diritto svizzero.",
            ],
        },
    ),
    *_natural(
        "nl",
        {
            "approval": [
                "Geen bezwaar.",
                "Prima wat mij betreft.",
                "Je mag tekenen.",
                "Ziet er goed uit, je kunt tekenen.",
            ],
            "rejection": [
                "Niet tekenen.",
                "Niet in deze vorm.",
                "Dat is uitgesloten.",
                "Daar kan ik niet mee akkoord gaan.",
            ],
            "decline": [
                "Niet mijn vakgebied, vraag het fiscalisten-team.",
                "Ik heb een belangenconflict.",
                "Vraag het liever aan Pieter.",
            ],
            "conditional": [
                "Akkoord, mits de aansprakelijkheid niet meer dan 1 miljoen euro bedraagt.",
                "Je mag tekenen, op voorwaarde dat de verwerkersovereenkomst getekend is.",
                "Geen bezwaar, zolang het Zwitsers recht geldt.",
            ],
        },
    ),
    *_natural(
        "pl",
        {
            "approval": [
                "Nie mam zastrzeżeń.",
                "Dla mnie w porządku.",
                "Można podpisać.",
                "Wygląda dobrze, możesz podpisać.",
            ],
            "rejection": [
                "Proszę tego nie podpisywać.",
                "Nie w tej formie.",
                "To nie wchodzi w grę.",
                "Nie mogę się na to zgodzić.",
            ],
            "decline": [
                "To nie moja dziedzina, zapytaj dział podatkowy.",
                "Mam konflikt interesów.",
                "Zapytaj raczej Annę.",
            ],
            "conditional": [
                "Zgoda, pod warunkiem że odpowiedzialność nie przekroczy 1 mln EUR.",
                "Można podpisać, o ile umowa powierzenia zostanie podpisana.",
                "Nie mam zastrzeżeń, pod warunkiem że obowiązuje prawo szwajcarskie.",
            ],
        },
    ),
    *_natural(
        "pt",
        {
            "approval": [
                "Sem objeções.",
                "Por mim, tudo bem.",
                "Pode assinar.",
                "Parece-me bem, pode assinar.",
            ],
            "rejection": [
                "Não assine.",
                "Não nesta forma.",
                "Está fora de questão.",
                "Não posso concordar.",
            ],
            "decline": [
                "Não é a minha área, fale com o fiscal.",
                "Tenho um conflito de interesses.",
                "Pergunte antes à Ana.",
            ],
            "conditional": [
                "De acordo, desde que a responsabilidade não exceda 1 milhão de euros.",
                "Pode assinar, com a condição de que o DPA seja assinado.",
                "Sem objeções, desde que se aplique o direito suíço.",
            ],
        },
    ),
    *_natural(
        "ja",
        {
            "approval": [
                "問題ありません。進めてください。",
                "異議ありません。",
                "署名して大丈夫です。",
                "私としては問題ありません。",
            ],
            "rejection": [
                "署名しないでください。",
                "この形では受け入れられません。",
                "論外です。",
                "同意できません。",
            ],
            "decline": [
                "私の専門外です。税務チームに聞いてください。",
                "利益相反があるため対応できません。",
                "田中さんに聞いてください。",
            ],
            "conditional": [
                "責任上限が1億円を超えないことを条件に承認します。",
                "DPAの締結を条件として、署名して構いません。",
                "スイス法が適用される場合に限り、同意します。",
            ],
        },
    ),
    *_natural(
        "zh",
        {
            "approval": ["没有异议。", "我这边没问题。", "可以签。", "看起来没问题，可以签署。"],
            "rejection": ["请不要签。", "这个版本不行。", "这绝对不行。", "我无法同意。"],
            "decline": ["这不是我的领域，请问税务组。", "我有利益冲突。", "请改问王律师。"],
            "conditional": [
                "同意，前提是责任上限不超过100万欧元。",
                "可以签，条件是先签署DPA。",
                "没有异议，只要适用瑞士法律。",
            ],
        },
    ),
]

FAMILIES: dict[str, list[Trial]] = {
    "yes_continuation": YES_CONTINUATION,
    "go_ahead_first": GO_AHEAD_FIRST,
    "holdback": HOLDBACK,
    "yes_no_ask": YES_NO_ASK,
    "quick_notes": QUICK_NOTES,
    "self_correction": SELF_CORRECTION,
    "cross_language": CROSS_LANGUAGE,
}
ALL_TRIALS: list[Trial] = [trial for trials in FAMILIES.values() for trial in trials] + NATURAL


def _held(language: str, text: str, expect: tuple[str | None, ...] = NONE) -> Trial:
    return Trial("held_out", language, text, expect)


# Written after the tables, to see how the reading carries over to new wording; the tables
# were not tuned on these.
HELD_OUT = [
    _held("en", "Yes - will circle back after the board call."),
    _held("en", "Yes, though I'd like to see the signature block before it goes out."),
    _held("en", "Sure, but hang fire until Legal Ops confirms the entity name."),
    _held("en", "Approved, assuming you first get sign-off from the CFO.", NONE + CONDITIONAL),
    _held("en", "Go ahead and loop in compliance before anything is signed."),
    _held("en", "Approved subject to my final read-through tomorrow."),
    _held("en", "Yes. Actually no - the governing law is wrong."),
    _held("en", "Fine by me, but only once the redline is accepted.", NONE + CONDITIONAL),
    _held("en", "Approved in substance; I'll confirm formally on Monday."),
    _held("en", "Absolutely, once I've had a chance to review the annex."),
    _held("en", "I have no objection to the NDA as drafted.", APPROVAL + NONE),
    _held("en", "Please do not proceed with this one.", REJECTION + NONE),
    _held(
        "en", "This falls outside my practice area - please route to employment.", DECLINE + NONE
    ),
    _held("de", "Ja, sobald ich die finale Fassung gesehen habe."),
    _held("de", "Genehmigt - äh, Moment, noch nicht."),
    _held("de", "Von mir aus ja, aber erst morgen nach dem Call."),
    _held("de", "Grundsätzlich ja, ich muss aber noch mit dem Partner sprechen."),
    _held(
        "de",
        "Einverstanden, vorausgesetzt die Haftung bleibt unter 500.000 EUR.",
        CONDITIONAL + NONE,
    ),
    _held("de", "Nein, so bitte nicht unterschreiben.", REJECTION + NONE),
    _held("fr", "Oui, je m'en occupe dès lundi."),
    _held("fr", "D'accord sur le fond, mais ne signez rien avant mon retour."),
    _held("fr", "Approuvé. Euh, non, attendez une minute."),
    _held(
        "fr", "Vous pouvez signer, à condition que la clause 7 soit supprimée.", CONDITIONAL + NONE
    ),
    _held("es", "Sí, lo comento con el socio y te digo."),
    _held("es", "Aprobado, pero no lo envíes hasta que yo lo revise."),
    _held("es", "Adelante y pide primero la confirmación del banco."),
    _held("es", "No estoy de acuerdo con esta versión.", REJECTION + NONE),
    _held("it", "Sì, ne discutiamo domani con il cliente."),
    _held("it", "Approvato, ma aspetta il mio ok definitivo."),
    _held("it", "Va bene, purché il foro competente resti Milano.", CONDITIONAL + NONE),
    _held("nl", "Ja, ik bel je morgen even hierover."),
    _held("nl", "Akkoord, maar wacht nog met ondertekenen."),
    _held("nl", "Goedgekeurd. O nee, toch niet."),
    _held("pl", "Tak, ale poczekajmy na opinię działu podatkowego."),
    _held("pl", "Zatwierdzam, ale dopiero po rozmowie z klientem."),
    _held("pt", "Sim, vou rever com calma amanhã."),
    _held("pt", "Aprovado, mas aguarde a minha confirmação."),
    _held("ja", "はい、来週の会議で検討しましょう。"),
    _held("ja", "承認します。いや、ちょっと待ってください。"),
    _held("ja", "署名は私が確認してからにしてください。"),
    _held("zh", "是的，等我和合伙人商量后再说。"),
    _held("zh", "原则上可以，但请先不要付款。"),
    _held("zh", "同意，但必须先由财务确认。", NONE + CONDITIONAL),
    _held("sv", "Ja, men vänta tills jag har pratat med klienten."),
    _held("cs", "Ano, ale ještě nepodepisujte."),
    _held("ru", "Да, но пока не подписывайте."),
]
