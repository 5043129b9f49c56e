"""Reply texts of the families the splitter used to miss (issue: text families).

Each case is a plain-text reply as a client builds it and the new text the lawyer wrote.
Read by ``test_split.py`` and counted by ``bench/decisions.py``.
"""

from __future__ import annotations

ANSWER = "Approved, subject to the cap staying at 12 months."
_QUOTED = "Please confirm the payment of EUR 62,000.00 to Kraftwerk Logistics GmbH.\nReply APPROVE or REJECT."


def _outlook(labels: tuple[str, str, str, str]) -> str:
    frm, sent, to, subject = labels
    return (
        f"{ANSWER}\n\n{frm}: Human for AI <hfa@reply.firm.test>\n{sent}: 1.12.2026 21:02\n"
        f"{to}: Jane Smith <counsel@firm.test>\n{subject}: [HFA-00027] Payment\n\n{_QUOTED}\n"
    )


# Outlook's quoted header block, in the labels of every table language.
OUTLOOK_LABELS = {
    "en": ("From", "Sent", "To", "Subject"),
    "de": ("Von", "Gesendet", "An", "Betreff"),
    "fr": ("De", "Envoyé", "À", "Objet"),
    "es": ("De", "Enviado el", "Para", "Asunto"),
    "it": ("Da", "Inviato", "A", "Oggetto"),
    "nl": ("Van", "Verzonden", "Aan", "Onderwerp"),
    "pt": ("De", "Enviada em", "Para", "Assunto"),
    "sv": ("Från", "Skickat", "Till", "Ämne"),
    "da": ("Fra", "Sendt", "Til", "Emne"),
    "nb": ("Fra", "Sendt", "Til", "Emne"),
    "fi": ("Lähettäjä", "Lähetetty", "Vastaanottaja", "Aihe"),
    "pl": ("Od", "Wysłano", "Do", "Temat"),
    "cs": ("Od", "Odesláno", "Komu", "Předmět"),
    "ru": ("От", "Отправлено", "Кому", "Тема"),
    "uk": ("Від", "Надіслано", "Кому", "Тема"),
    "ja": ("差出人", "送信日時", "宛先", "件名"),
    "zh": ("发件人", "发送时间", "收件人", "主题"),
}

# A legal disclaimer under the answer, in every table language.
DISCLAIMERS = {
    "en": "This e-mail and any attachments are confidential and may be privileged.",
    "de": "Diese E-Mail enthält vertrauliche und/oder rechtlich geschützte Informationen.",
    "fr": "Ce message et ses pièces jointes sont confidentiels et établis à l'intention exclusive de ses destinataires.",
    "es": "Este mensaje y sus anexos son confidenciales y para uso exclusivo del destinatario.",
    "it": "Le informazioni contenute in questa e-mail sono riservate e destinate esclusivamente al destinatario.",
    "nl": "Dit e-mailbericht is vertrouwelijk en uitsluitend bestemd voor de geadresseerde.",
    "pt": "Esta mensagem e os seus anexos são confidenciais e destinam-se exclusivamente ao destinatário.",
    "sv": "Detta e-postmeddelande är konfidentiellt och endast avsett för mottagaren.",
    "da": "Denne e-mail er fortrolig og kun beregnet for modtageren.",
    "nb": "Denne e-posten er konfidensiell og kun ment for mottakeren.",
    "fi": "Tämä sähköpostiviesti on luottamuksellinen ja tarkoitettu vain vastaanottajalle.",
    "pl": "Ta wiadomość jest poufna i przeznaczona wyłącznie dla adresata.",
    "cs": "Tento e-mail je důvěrný a je určen pouze adresátovi.",
    "ru": "Это сообщение является конфиденциальным и предназначено только для адресата.",
    "uk": "Це повідомлення є конфіденційним і призначене лише для адресата.",
    "ja": "このメールには機密情報が含まれている場合があります。",
    "zh": "本邮件及其附件含有保密信息，仅供收件人使用。",
}

# (name, reply as sent, the new text)
CASES: list[tuple[str, str, str]] = [
    *[(f"outlook_{code}", _outlook(labels), ANSWER) for code, labels in OUTLOOK_LABELS.items()],
    *[
        (f"disclaimer_{code}", f"{ANSWER}\n\n{text}\n", ANSWER)
        for code, text in DISCLAIMERS.items()
    ],
    (
        "outlook_android_footer_with_link",
        f"{ANSWER}\n\nGet Outlook for Android<https://aka.ms/ghei36>\n",
        ANSWER,
    ),
    (
        "outlook_ios_footer_link_on_its_own_line",
        f"{ANSWER}\n\nGet Outlook for iOS\n<https://aka.ms/o0ukef>\n",
        ANSWER,
    ),
    (
        "lotus_notes_reply_header",
        f"{ANSWER}\n\n\n\nFrom:\tHuman for AI/HFA@HFA\nTo:\tJane Smith/FIRM@FIRM\n"
        f"Date:\t01.12.2026 21:02\nSubject:\t[HFA-00027] Payment\n\n{_QUOTED}\n",
        ANSWER,
    ),
    (
        "lotus_notes_wrote_on",
        f"{ANSWER}\n\nHuman for AI/HFA@HFA wrote on 01.12.2026 21:02:\n\n{_QUOTED}\n",
        ANSWER,
    ),
    (
        "lotus_notes_forwarded_by",
        f"{ANSWER}\n\n----- Forwarded by Jane Smith/FIRM on 01.12.2026 21:05 -----\n\n{_QUOTED}\n",
        ANSWER,
    ),
    (
        "lotus_notes_weitergeleitet_von",
        f"{ANSWER}\n\n----- Weitergeleitet von Jane Smith/FIRM am 01.12.2026 21:05 -----\n\n{_QUOTED}\n",
        ANSWER,
    ),
    (
        "wrapped_quote_lost_its_marker",
        "> Please confirm the payment of EUR 62,000.00 to Kraftwerk Logistics GmbH for\n"
        "invoice KL-2026-443 before I release it.\n\nApproved.",
        "> Please confirm the payment of EUR 62,000.00 to Kraftwerk Logistics GmbH for\n"
        "invoice KL-2026-443 before I release it.\n\nApproved.",
    ),
    (
        "zoho_dashed_attribution_deep",
        f"{ANSWER}\n\nA few notes on the annex follow.\n\n- clause 4 is fine\n- clause 9 too\n\n"
        f"Thanks,\nJane\n\n---- On Tue, 01 Dec 2026 21:02:11 +0100 Human for AI <hfa@reply.firm.test> wrote ----\n\n{_QUOTED}\n",
        f"{ANSWER}\n\nA few notes on the annex follow.\n\n- clause 4 is fine\n- clause 9 too",
    ),
    (
        "forward_with_a_short_note",
        "FYI - approved from my side.\n\n---------- Forwarded message ---------\n"
        "From: Human for AI <hfa@reply.firm.test>\nDate: Tue, Dec 1, 2026 at 9:02 PM\n"
        f"Subject: [HFA-00027] Payment\nTo: <counsel@firm.test>\n\n{_QUOTED}\n",
        "FYI - approved from my side.",
    ),
    (
        "separator_equals",
        f"{ANSWER}\n\n========================================\n{_QUOTED}\n",
        ANSWER,
    ),
    (
        "separator_box_drawing",
        f"{ANSWER}\n\n━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━\n{_QUOTED}\n",
        ANSWER,
    ),
    (
        "separator_original_message_spaced",
        f"{ANSWER}\n\n- - - - - Original Message - - - - -\n{_QUOTED}\n",
        ANSWER,
    ),
    (
        "separator_reply_above_this_line",
        f"{ANSWER}\n\n##- Please type your reply above this line -##\n{_QUOTED}\n",
        ANSWER,
    ),
]
