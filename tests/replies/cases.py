"""Hand-written replies as real clients send them, with the expected reading.

Every case says what the lawyer wrote now (``new_text``), the decision it
carries and whether the message is automatic. Bodies are written by hand to
look like what Gmail, Outlook, Apple Mail, Thunderbird, Yahoo, mail.ru and
Yandex produce, in the languages the gateway meets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gateway.replies import AutomaticKind, DecisionKind

SUBJECT = "Re: [HFA-00042] Legal review: supplier contract"
ADDR = "HFA Gateway <review@hfa.example.com>"
QUOTE = "> Please review the attached supplier contract.\n> Reply APPROVE or REJECT.\n"
GMAIL_EN = f"On Mon, Mar 4, 2024 at 10:12 AM {ADDR} wrote:"
OUTLOOK_EN = (
    "From: HFA Gateway <review@hfa.example.com>\n"
    "Sent: Monday, March 4, 2024 10:12 AM\n"
    "To: Jane Doe <jane@doe-partners.example>\n"
    "Subject: [HFA-00042] Legal review: supplier contract\n\n"
    "Please review the attached supplier contract.\n"
)
GMAIL_QUOTE_HTML = (
    '<div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Mar 4, 2024 at '
    '10:12 AM HFA Gateway &lt;<a href="mailto:review@hfa.example.com">review@hfa.example.com'
    '</a>&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px '
    '0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">Please review the '
    "attached supplier contract.<br>Hello! How are you?</blockquote></div>"
)
A, R, D, Q, C, ON_IT = (
    DecisionKind.APPROVAL,
    DecisionKind.REJECTION,
    DecisionKind.DECLINE,
    DecisionKind.QUESTION,
    DecisionKind.CLOSE,
    # A promise to answer later: read as I'M ON IT.
    DecisionKind.ACKNOWLEDGE,
)


@dataclass(frozen=True)
class Case:
    name: str
    new_text: str
    plain: str | None = None
    html: str | None = None
    decision: DecisionKind | None = None
    trigger: str | None = None
    subject: str = SUBJECT
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/plain; charset=utf-8"
    automatic: AutomaticKind | None = None
    confident: bool = True


def _gmail(answer: str, attribution: str = GMAIL_EN) -> str:
    return f"{answer}\n\n{attribution}\n\n{QUOTE}"


CASES: list[Case] = [
    # --- Gmail, English, top-posted -------------------------------------------------
    Case("gmail_approved", "Approved.", _gmail("Approved."), decision=A, trigger="Approved"),
    Case(
        "gmail_wrapped_attribution",
        "Rejected - the indemnity cap is too low.",
        "Rejected - the indemnity cap is too low.\n\nOn Mon, Mar 4, 2024 at 10:12 AM HFA Legal"
        " Review Gateway <\nreview@hfa.example.com> wrote:\n\n" + QUOTE,
        decision=R,
        trigger="Rejected",
    ),
    Case(
        "conditions_hyphen_list",
        "Approved, subject to:\n- the liability cap is raised to EUR 1m\n- clause 7 is deleted",
        _gmail(
            "Approved, subject to:\n- the liability cap is raised to EUR 1m\n- clause 7 is deleted"
        ),
        decision=A,
    ),
    Case(
        "conditions_numbered_then_signoff",
        "Approved, subject to:\n1. Delete clause 4.2\n2. Add a GDPR annex",
        _gmail(
            "Approved, subject to:\n1. Delete clause 4.2\n2. Add a GDPR annex\n\nBest regards,\n"
            "Jane Doe\nPartner | Doe & Partners LLP\n+49 30 1234567"
        ),
        decision=A,
    ),
    Case(
        "conditions_list_after_thanks_line",
        "Thanks,\n\nApproved, subject to:\n- cap at EUR 1m\n- no auto-renewal",
        _gmail("Thanks,\n\nApproved, subject to:\n- cap at EUR 1m\n- no auto-renewal"),
        decision=A,
    ),
    Case(
        "regards_mid_sentence",
        "Approved. Give my regards to the procurement team, they did well.",
        _gmail("Approved. Give my regards to the procurement team, they did well."),
        decision=A,
    ),
    Case(
        "sent_from_mid_sentence",
        "Rejected. The draft sent from your system still has the old cap.",
        _gmail("Rejected. The draft sent from your system still has the old cap."),
        decision=R,
    ),
    Case(
        "wrote_mid_sentence",
        "Question: what you wrote about clause 3 is unclear - which version applies?",
        _gmail("Question: what you wrote about clause 3 is unclear - which version applies?"),
        decision=Q,
    ),
    Case(
        "signature_delimiter",
        "Declined - this is outside my practice area, please ask a tax advisor.",
        _gmail(
            "Declined - this is outside my practice area, please ask a tax advisor.\n\n-- \n"
            "Jane Doe\nDoe & Partners LLP"
        ),
        decision=D,
    ),
    Case(
        "thanks_sentence_is_content",
        "Approved.\nThanks, that works for us.",
        _gmail("Approved.\nThanks, that works for us."),
        decision=A,
    ),
    Case("signoff_only_is_kept", "Thanks!", _gmail("Thanks!")),
    Case(
        "no_quote_at_all",
        "Approve",
        "Approve\n",
        decision=A,
        trigger="Approve",
    ),
    Case(
        "approval_granted",
        "Approval granted.",
        _gmail("Approval granted."),
        decision=A,
        trigger="Approval granted",
    ),
    Case(
        "markdown_bold",
        "**Approved** - go ahead.",
        _gmail("**Approved** - go ahead."),
        decision=A,
        trigger="Approved",
    ),
    Case("exclamations", "Approved!!!", _gmail("Approved!!!"), decision=A),
    Case(
        "greeting_then_decision",
        "Hi Agent,\n\nYes, go ahead.",
        _gmail("Hi Agent,\n\nYes, go ahead."),
        decision=A,
        trigger="Yes",
    ),
    # --- mobile footers ---------------------------------------------------------------
    Case(
        "iphone_en",
        "Approved",
        "Approved\n\nSent from my iPhone\n\nOn 4 Mar 2024, at 10:12, HFA Gateway "
        "<review@hfa.example.com> wrote:\n\n" + QUOTE,
        decision=A,
    ),
    Case(
        "iphone_de_quoted_attribution",
        "Genehmigt.",
        "Genehmigt.\n\nVon meinem iPhone gesendet\n\n> Am 04.03.2024 um 10:12 schrieb HFA "
        "Gateway <review@hfa.example.com>:\n>\n> Bitte prüfen Sie den Liefervertrag.\n",
        decision=A,
        trigger="Genehmigt",
    ),
    Case(
        "iphone_fr",
        "Refusé, la clause de non-concurrence est trop large.",
        "Refusé, la clause de non-concurrence est trop large.\n\nEnvoyé de mon iPhone\n\n"
        "> Le 4 mars 2024 à 10:12, HFA Gateway <review@hfa.example.com> a écrit :\n>\n"
        "> Merci de vérifier le contrat.\n",
        decision=R,
    ),
    Case(
        "iphone_es",
        "Aprobado.",
        "Aprobado.\n\nEnviado desde mi iPhone\n\nEl lun, 4 mar 2024 a las 10:12, HFA Gateway "
        "(<review@hfa.example.com>) escribió:\n> Por favor revise el contrato.\n",
        decision=A,
    ),
    Case(
        "outlook_ios",
        "Closed, thanks.",
        "Closed, thanks.\n\nGet Outlook for iOS\n________________________________\n" + OUTLOOK_EN,
        decision=C,
    ),
    Case(
        "yahoo_android",
        "Rejected.",
        "Rejected.\n\nSent from Yahoo Mail on Android\n\n  On Mon, Mar 4, 2024 at 10:12, "
        "HFA Gateway<review@hfa.example.com> wrote:\n  Please review the attached contract.\n",
        decision=R,
    ),
    Case(
        "samsung_footer",
        "Question: is the NDA mutual?",
        "Question: is the NDA mutual?\n\nSent from my Galaxy\n\n" + GMAIL_EN + "\n" + QUOTE,
        decision=Q,
    ),
    # --- Outlook desktop, several languages -----------------------------------------
    Case(
        "outlook_en_name_line",
        "Approved.\n\nJane",
        "Approved.\n\nJane\n\n" + OUTLOOK_EN,
        decision=A,
    ),
    Case(
        "outlook_en_underscores",
        "Rejected - clause 9 conflicts with our standard terms.",
        "Rejected - clause 9 conflicts with our standard terms.\n\n"
        "________________________________\n" + OUTLOOK_EN,
        decision=R,
    ),
    Case(
        "outlook_de",
        "Freigegeben.",
        "Freigegeben.\n\nMit freundlichen Grüßen\nDr. Anna Schmidt\nRechtsanwältin\n\n"
        "Von: HFA Gateway <review@hfa.example.com>\nGesendet: Montag, 4. März 2024 10:12\n"
        "An: Anna Schmidt <schmidt@kanzlei.example>\n"
        "Betreff: [HFA-00042] Rechtliche Prüfung: Liefervertrag\n\nBitte prüfen Sie.\n",
        decision=A,
        trigger="Freigegeben",
    ),
    Case(
        "outlook_fr",
        "Approuvé.",
        "Approuvé.\n\nCordialement,\nMarie Dupont\n\nDe : HFA Gateway <review@hfa.example.com>"
        "\nEnvoyé : lundi 4 mars 2024 10:12\nÀ : Marie Dupont <m.dupont@cabinet.example>\n"
        "Objet : [HFA-00042] Revue juridique\n\nMerci de vérifier.\n",
        decision=A,
    ),
    Case(
        "outlook_es",
        "Rechazado: falta la cláusula de protección de datos.",
        "Rechazado: falta la cláusula de protección de datos.\n\nSaludos,\nCarlos\n\n"
        "De: HFA Gateway <review@hfa.example.com>\nEnviado: lunes, 4 de marzo de 2024 10:12\n"
        "Para: Carlos Ruiz <c.ruiz@bufete.example>\nAsunto: [HFA-00042] Revisión legal\n\n"
        "Por favor revise.\n",
        decision=R,
    ),
    Case(
        "outlook_nl",
        "Goedgekeurd.",
        "Goedgekeurd.\n\nMet vriendelijke groet,\nPieter de Vries\n\n"
        "Van: HFA Gateway <review@hfa.example.com>\nVerzonden: maandag 4 maart 2024 10:12\n"
        "Aan: Pieter de Vries <p.devries@advocaten.example>\n"
        "Onderwerp: [HFA-00042] Juridische review\n\nGraag beoordelen.\n",
        decision=A,
    ),
    Case(
        "outlook_it",
        "Serve più tempo.",
        "Serve più tempo.\n\nDa: HFA Gateway <review@hfa.example.com>\n"
        "Inviato: lunedì 4 marzo 2024 10:12\nA: Luca Bianchi <l.bianchi@studio.example>\n"
        "Oggetto: [HFA-00042] Revisione legale\n\nSi prega di verificare.\n",
    ),
    Case(
        "original_message_en",
        "Rejected - see my comments in the attached mark-up.",
        "Rejected - see my comments in the attached mark-up.\n\n-----Original Message-----\n"
        + OUTLOOK_EN,
        decision=R,
    ),
    Case(
        "original_message_de",
        "Abgelehnt. Die Haftungsklausel ist unwirksam.",
        "Abgelehnt. Die Haftungsklausel ist unwirksam.\n\n-----Ursprüngliche Nachricht-----\n"
        "Von: HFA Gateway [mailto:review@hfa.example.com]\nGesendet: Montag, 4. März 2024\n"
        "An: Anna Schmidt\nBetreff: Liefervertrag\n\nBitte prüfen.\n",
        decision=R,
        trigger="Abgelehnt",
    ),
    Case(
        "original_message_fr",
        "Question : la clause 5 s'applique-t-elle aussi aux filiales ?",
        "Question : la clause 5 s'applique-t-elle aussi aux filiales ?\n\n"
        "-----Message d'origine-----\nDe : HFA Gateway\nEnvoyé : lundi 4 mars 2024\n"
        "Objet : Revue\n\nMerci.\n",
        decision=Q,
    ),
    Case(
        "original_message_es",
        "Apruebo el contrato.",
        "Apruebo el contrato.\n\n-----Mensaje original-----\nDe: HFA Gateway\n"
        "Enviado: lunes\nAsunto: Revisión\n\nGracias.\n",
        decision=A,
        trigger="Apruebo",
    ),
    Case(
        "zimbra_original_message_spaced",
        "Closed",
        "Closed\n\n----- Original Message -----\nFrom: review@hfa.example.com\n"
        "Sent: Monday, March 4, 2024 10:12:00 AM\nSubject: Legal review\n\nPlease review\n",
        decision=C,
    ),
    Case(
        "hotmail_quoted_header_block",
        "Denied.",
        "Denied.\n\n> Subject: [HFA-00042] Legal review\n> From: review@hfa.example.com\n"
        "> Date: Mon, 4 Mar 2024 10:12:00 +0000\n>\n> Please review\n",
        decision=R,
    ),
    # --- attributions in other languages -------------------------------------------
    Case(
        "gmail_it",
        "Approvato, grazie.",
        _gmail(
            "Approvato, grazie.",
            f"Il giorno lun 4 mar 2024 alle ore 10:12 {ADDR} ha scritto:",
        ),
        decision=A,
    ),
    Case(
        "gmail_nl",
        "Afgewezen.",
        _gmail("Afgewezen.", f"Op ma 4 mrt 2024 om 10:12 schreef {ADDR}:"),
        decision=R,
    ),
    Case(
        "gmail_pt",
        "Pode avançar.",
        _gmail("Pode avançar.", f"Em seg., 4 de mar. de 2024 às 10:12, {ADDR} escreveu:"),
        decision=A,
    ),
    Case(
        "gmail_sv",
        "Vi behöver mer tid.",
        _gmail("Vi behöver mer tid.", f"Den mån 4 mars 2024 kl 10:12 skrev {ADDR}:"),
    ),
    Case(
        "gmail_da",
        "Jeg vender tilbage i morgen.",
        _gmail("Jeg vender tilbage i morgen.", f"Den man. 4. mar. 2024 kl. 10.12 skrev {ADDR}:"),
        decision=ON_IT,
    ),
    Case(
        "gmail_no",
        "Ser bra ut.",
        _gmail("Ser bra ut.", f"man. 4. mar. 2024 kl. 10:12 skrev {ADDR}:"),
    ),
    Case(
        "gmail_pl",
        "Proszę o więcej informacji.",
        _gmail(
            "Proszę o więcej informacji.",
            f"W dniu pon., 4.03.2024 o 10:12 {ADDR} napisał(a):",
        ),
    ),
    Case(
        "gmail_ru_bare",
        "Согласовано.",
        _gmail("Согласовано.", f"пн, 4 мар. 2024 г. в 10:12, {ADDR}:"),
        decision=A,
    ),
    Case(
        "android_ru_wrapped",
        "Нужно больше времени.",
        'Нужно больше времени.\n04.03.2024 10:12 пользователь "HFA Gateway" <\n'
        "review@hfa.example.com> написал:\n\n" + QUOTE,
    ),
    Case(
        "gmail_ja_bare",
        "承認します。",
        _gmail("承認します。", f"2024年3月4日(月) 10:12 {ADDR}:"),
        decision=A,
    ),
    Case(
        "ja_kakimashita",
        "確認します。",
        _gmail("確認します。", "2024/03/04 10:12、HFA Gateway さんは書きました:"),
        decision=ON_IT,
    ),
    Case(
        "gmail_zh",
        "同意。",
        _gmail("同意。", f"{ADDR} 于2024年3月4日周一 10:12写道："),
        decision=A,
    ),
    Case(
        "gmail_de_wrapped",
        "Genehmigt.",
        "Genehmigt.\n\nAm Mo., 4. März 2024 um 10:12 Uhr schrieb HFA Legal Review Gateway <\n"
        "review@hfa.example.com>:\n\n" + QUOTE,
        decision=A,
    ),
    Case(
        "gmail_fr_wrapped",
        "Rejeté.",
        "Rejeté.\n\nLe lun. 4 mars 2024 à 10:12, HFA Legal Review Gateway <\n"
        "review@hfa.example.com> a écrit :\n\n" + QUOTE,
        decision=R,
    ),
    Case(
        "de_outlook_unquoted_history",
        "Nein, bitte Klausel 3 streichen.",
        "Nein, bitte Klausel 3 streichen.\n\nAm 04.03.2024 um 10:12 schrieb HFA Gateway "
        "<review@hfa.example.com>:\nBitte prüfen Sie den Vertrag.\nHFA\n",
        decision=R,
        trigger="Nein",
    ),
    # --- bottom-posted and inline -------------------------------------------------
    Case(
        "bottom_posted",
        "Approved.",
        f"{GMAIL_EN}\n> Please review the NDA.\n> Reply APPROVE or REJECT.\n\nApproved.\n",
        decision=A,
    ),
    Case(
        "inline_answers",
        "> 1. Is the governing law clause acceptable?\nYes, German law is fine.\n"
        "> 2. Can we accept the 12-month term?\nNo, make it 24 months.",
        f"{GMAIL_EN}\n> 1. Is the governing law clause acceptable?\nYes, German law is fine.\n"
        "> 2. Can we accept the 12-month term?\nNo, make it 24 months.\n",
    ),
    Case(
        "inline_with_signoff",
        "> Is clause 2 fine?\nFine.\n\n> And clause 3?\nDelete it.",
        f"{GMAIL_EN}\n> Is clause 2 fine?\nFine.\n\n> And clause 3?\nDelete it.\n\nRegards,\n"
        "Jane\n",
    ),
    Case(
        "decision_only_in_quote",
        "Let me check with the partner and get back to you.",
        _gmail("Let me check with the partner and get back to you.") + "> Approved\n",
        decision=ON_IT,
    ),
    # --- disclaimers ---------------------------------------------------------------
    Case(
        "disclaimer_en",
        "Approved.\n\nJane Doe\nDoe & Partners LLP",
        _gmail(
            "Approved.\n\nJane Doe\nDoe & Partners LLP\n\nThis email and any attachments are "
            "confidential and may be privileged. If you are not the intended recipient, "
            "please notify the sender immediately."
        ),
        decision=A,
    ),
    Case(
        "confidentiality_notice",
        "Rejected.",
        "Rejected.\n\nCONFIDENTIALITY NOTICE: The contents of this email are confidential.\n\n"
        "-----Original Message-----\n" + OUTLOOK_EN,
        decision=R,
    ),
    Case(
        "disclaimer_de",
        "Abgelehnt.",
        "Abgelehnt.\n\nDiese E-Mail enthält vertrauliche und/oder rechtlich geschützte "
        "Informationen. Wenn Sie nicht der richtige Adressat sind, informieren Sie bitte "
        "sofort den Absender.\n\nVon: HFA Gateway\nGesendet: Montag\nBetreff: Vertrag\n",
        decision=R,
    ),
    # --- decision words, negations, look-alikes ---------------------------------------
    # A natural rejection: "I cannot approve this" says no to the proposed action.
    Case(
        "cannot_approve",
        "I cannot approve this - the cap is missing.",
        _gmail("I cannot approve this - the cap is missing."),
        decision=R,
    ),
    Case("not_approved", "Not approved.", _gmail("Not approved."), decision=R),
    Case(
        "do_not_approve",
        "Do not approve until the cap is fixed.",
        "Do not approve until the cap is fixed.",
    ),
    Case("disapprove", "Disapprove.", "Disapprove."),
    Case("unapproved", "Unapproved - please resend.", "Unapproved - please resend."),
    Case("nicht_genehmigt", "Nicht genehmigt.", "Nicht genehmigt.", decision=R),
    Case("non_approuve", "Non approuvé.", "Non approuvé.", decision=R),
    Case("no_aprobado", "No aprobado.", "No aprobado.", decision=R),
    Case("niet_goedgekeurd", "Niet goedgekeurd.", "Niet goedgekeurd.", decision=R),
    Case("disallow", "Disallow.", "Disallow."),
    Case(
        "approved_then_retracted",
        "Approved.\n\nOn reflection I do not approve the annex.",
        "Approved.\n\nOn reflection I do not approve the annex.",
    ),
    Case(
        "approve_and_reject",
        "Approved for the NDA, rejected for the MSA.",
        "Approved for the NDA, rejected for the MSA.",
    ),
    Case("approved_question_mark", "Approved? Not yet.", "Approved? Not yet.", decision=Q),
    Case("akkoord_question", "Akkoord?", "Akkoord?", decision=Q),
    Case(
        "no_with_comment",
        "No, use 6 instead of 5",
        _gmail("No, use 6 instead of 5"),
        decision=R,
        trigger="No",
    ),
    Case(
        "no_problem",
        "No problem, I'll look at it on Monday.",
        "No problem, I'll look at it on Monday.",
        decision=ON_IT,
    ),
    Case("ja_passt", "Ja, passt so.", "Ja, passt so.", decision=A, trigger="Ja"),
    Case("oui", "Oui, c'est bon.", "Oui, c'est bon.", decision=A),
    Case(
        "non_comment",
        "Non, la clause 3 doit être supprimée.",
        "Non, la clause 3 doit être supprimée.",
        decision=R,
    ),
    Case("close_alone", "Close", "Close", decision=C),
    Case(
        "close_nearly",
        "Close, but clause 5 still needs work.",
        "Close, but clause 5 still needs work.",
    ),
    Case("decline", "Decline.", "Decline.", decision=D),
    Case("abgelehnt_lower", "abgelehnt", "abgelehnt", decision=R),
    # --- quick-reply subjects ------------------------------------------------------
    Case(
        "subject_approve_empty_body",
        "",
        "\n",
        decision=A,
        trigger="APPROVE",
        subject="APPROVE [HFA-00042]",
        confident=False,
    ),
    Case(
        "subject_re_approve",
        "Approved, go ahead.",
        "Approved, go ahead.",
        decision=A,
        trigger="Approved",
        subject="Re: APPROVE [HFA-00042]",
    ),
    Case(
        "subject_reject_footer_only",
        "Sent from my iPhone",
        "Sent from my iPhone\n",
        decision=R,
        subject="REJECT [HFA-00042]",
    ),
    Case(
        "subject_ordinary_with_word",
        "Let me look at it tomorrow.",
        "Let me look at it tomorrow.",
        subject="Re: [HFA-00042] Legal review: approve supplier contract",
        decision=ON_IT,
    ),
    Case("subject_conflicts_body", "Approved", "Approved", subject="REJECT [HFA-00042]"),
    Case(
        "empty_answer_above_quote",
        f"{GMAIL_EN}\n> Please review",
        f"\n\n{GMAIL_EN}\n> Please review\n",
        confident=False,
    ),
    # --- HTML-only replies -------------------------------------------------------------
    Case(
        "html_gmail_list",
        "Approved, subject to:\n- cap at EUR 1m\n- delete clause 7",
        html='<div dir="ltr">Approved, subject to:<ul><li>cap at EUR 1m</li><li>delete clause'
        " 7</li></ul></div><br>" + GMAIL_QUOTE_HTML,
        decision=A,
    ),
    Case(
        "html_gmail_signature",
        "Rejected.",
        html='<div dir="ltr">Rejected.<br clear="all"><div><br></div>-- <br><div dir="ltr" '
        'class="gmail_signature">Jane Doe<br>Partner</div></div><br>' + GMAIL_QUOTE_HTML,
        decision=R,
    ),
    Case(
        "html_outlook_divrplyfwdmsg",
        "Approved.",
        html='<div>Approved.</div><div><br></div><hr style="display:inline-block;width:98%" '
        'tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri"><b>From:</b> '
        "HFA Gateway &lt;review@hfa.example.com&gt;<br><b>Sent:</b> Monday<br></font></div>"
        "<div>Hello! How are you?</div>",
        decision=A,
    ),
    Case(
        "html_outlook_border_e1e1e1_de",
        "Abgelehnt – bitte Klausel 7 streichen.",
        html="<div class=WordSection1><p class=MsoNormal>Abgelehnt – bitte Klausel 7 streichen."
        "<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p><div style='border:none;"
        "border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'><p class=MsoNormal>"
        "<b>Von:</b> HFA Gateway<br><b>Gesendet:</b> Montag</p></div><p>Bitte prüfen</p>"
        "</div>",
        decision=R,
    ),
    Case(
        "html_outlook_border_b5c4df",
        "Question: which jurisdiction applies?",
        html="<p>Question: which jurisdiction applies?</p><div style='border:none;border-top:"
        "solid #B5C4DF 1.0pt;padding:3.0pt 0in 0in 0in'><p><b>From:</b> HFA</p></div>"
        "<p>Hello! How are you?</p>",
        decision=Q,
    ),
    Case(
        "html_outlook_mac",
        "Question: is the cap per claim?",
        html="<div>Question: is the cap per claim?</div><div><br></div>"
        '<span id="OLK_SRC_BODY_SECTION"><div><b>From: </b>HFA Gateway</div>'
        "<div>Hello! How are you?</div></span>",
        decision=Q,
    ),
    Case(
        "html_appendonsend",
        "Approved",
        html='<div>Approved</div><div id="appendonsend"></div><hr><div>'
        "<b>From:</b> HFA</div><div>Hello! How are you?</div>",
        decision=A,
    ),
    Case(
        "html_apple_iphone",
        "Rejected.",
        html='<html><body dir="auto">Rejected.<br><br><div dir="ltr">Sent from my iPhone</div>'
        '<div dir="ltr"><br><blockquote type="cite">On 4 Mar 2024, at 10:12, HFA Gateway '
        "&lt;review@hfa.example.com&gt; wrote:<br><br></blockquote></div><blockquote "
        'type="cite"><div dir="ltr">Hello! How are you?</div></blockquote></body></html>',
        decision=R,
    ),
    Case(
        "html_apple_desktop",
        "Approved.",
        html="<div>Approved.</div><div><br><div>On 4 Mar 2024, at 10:12, HFA Gateway &lt;"
        'review@hfa.example.com&gt; wrote:</div><br><blockquote type="cite"><div>Hello! How '
        "are you?</div></blockquote></div>",
        decision=A,
    ),
    Case(
        "html_thunderbird",
        "Declined, conflict of interest.",
        html='<p>Declined, conflict of interest.</p><div class="moz-cite-prefix">On 04.03.24 '
        '10:12, HFA Gateway wrote:<br></div><blockquote type="cite" cite="mid:x@y">Hello! '
        'How are you?</blockquote><br><pre class="moz-signature" cols="72">-- \nJane</pre>',
        decision=D,
    ),
    Case(
        "html_yahoo",
        "Approved.",
        html='<div class="ydp1"><div>Approved.</div></div><div id="yahoo_quoted_1234" '
        'class="yahoo_quoted"><div>On Monday, March 4, 2024, 10:12 AM, HFA Gateway wrote:'
        "</div><div>Hello! How are you?</div></div>",
        decision=A,
    ),
    Case(
        "html_mail_ru",
        "Отклонено.",
        html="<p>Отклонено.</p>Пн, 4 мар 2024 10:12 +03:00 от HFA Gateway &lt;review@hfa."
        'example.com&gt;:<br><blockquote style="border-left:1px solid #0857A6; margin:10px;">'
        "Hello! How are you?</blockquote>",
        decision=R,
    ),
    Case(
        "html_yandex",
        "Genehmigt.",
        html='<div>Genehmigt.</div><div> </div><div>04.03.2024, 10:12, "HFA Gateway" &lt;'
        "review@hfa.example.com&gt;:</div><blockquote><div>Hello! How are you?</div>"
        "</blockquote>",
        decision=A,
    ),
    Case(
        "html_blockquote_bottom_posted",
        "Approved.",
        html="<blockquote>Hello! How are you?</blockquote><div>Approved.</div>",
        decision=A,
    ),
    Case(
        "html_outlook_2003_text_headers",
        "Rejected.",
        html="<p>Rejected.</p><hr><p><b>From:</b> HFA Gateway<br><b>Sent:</b> Monday<br>"
        "<b>To:</b> Jane<br><b>Subject:</b> Review</p><p>Hello! How are you?</p>",
        decision=R,
    ),
    Case(
        "html_entities",
        "Approved — go ahead.",
        html="<div>Approved&nbsp;&mdash; go&nbsp;ahead.</div>",
        decision=A,
    ),
    Case(
        "html_zimbra",
        "Closed.",
        html='<div>Closed.<br><br><hr id="zwchr"><b>From: </b>review@hfa.example.com<br>'
        "Hello! How are you?</div>",
        decision=C,
    ),
    Case(
        "html_hotmail",
        "Approved",
        html="<div dir='ltr'>Approved<br><br><div><hr id=\"stopSpelling\">Date: Mon<br>"
        "From: review@hfa.example.com<br>Hello! How are you?</div></div>",
        decision=A,
    ),
    Case(
        "plain_empty_html_used",
        "Approved.",
        plain="",
        html="<div>Approved.</div>" + GMAIL_QUOTE_HTML,
        decision=A,
    ),
    Case(
        "plain_wins_over_html",
        "Rejected.",
        plain=_gmail("Rejected."),
        html="<div>Something else entirely</div>",
        decision=R,
    ),
    # --- automatic messages -----------------------------------------------------------
    Case(
        "exchange_oof",
        "I am out of the office until 11 March.",
        "I am out of the office until 11 March.\n",
        subject="Automatic reply: [HFA-00042] Legal review: supplier contract",
        headers={"auto-submitted": "auto-generated", "x-auto-response-suppress": "All"},
        automatic=AutomaticKind.AUTO_REPLY,
    ),
    Case(
        "gmail_vacation",
        "I am travelling this week.",
        "I am travelling this week.",
        headers={"auto-submitted": "auto-replied"},
        automatic=AutomaticKind.AUTO_REPLY,
    ),
    Case(
        "oof_subject_de",
        "Ich bin abwesend.",
        "Ich bin abwesend.",
        subject="Abwesenheitsnotiz: [HFA-00042] Rechtliche Prüfung",
        automatic=AutomaticKind.AUTO_REPLY,
    ),
    Case(
        "oof_subject_fr",
        "Je suis absente.",
        "Je suis absente.",
        subject="Réponse automatique : [HFA-00042] Revue",
        automatic=AutomaticKind.AUTO_REPLY,
    ),
    Case(
        "oof_subject_es",
        "Estoy fuera.",
        "Estoy fuera.",
        subject="Respuesta automática: [HFA-00042] Revisión",
        automatic=AutomaticKind.AUTO_REPLY,
    ),
    Case(
        "oof_subject_es_office",
        "Estoy fuera.",
        "Estoy fuera.",
        subject="Fuera de la oficina: [HFA-00042]",
        automatic=AutomaticKind.AUTO_REPLY,
    ),
    Case(
        "oof_subject_nl",
        "Ik ben afwezig.",
        "Ik ben afwezig.",
        subject="Automatisch antwoord: [HFA-00042]",
        automatic=AutomaticKind.AUTO_REPLY,
    ),
    Case(
        "oof_subject_nl_afwezig",
        "Ik ben afwezig.",
        "Ik ben afwezig.",
        subject="Afwezig: [HFA-00042]",
        automatic=AutomaticKind.AUTO_REPLY,
    ),
    Case(
        "oof_subject_en",
        "Back Monday.",
        "Back Monday.",
        subject="Out of Office: [HFA-00042] Legal review",
        automatic=AutomaticKind.AUTO_REPLY,
    ),
    Case(
        "x_autoreply",
        "Back Monday.",
        "Back Monday.",
        headers={"x-autoreply": "yes"},
        automatic=AutomaticKind.AUTO_REPLY,
    ),
    Case(
        "precedence_bulk",
        "Newsletter",
        "Newsletter",
        headers={"precedence": "bulk"},
        automatic=AutomaticKind.AUTO_REPLY,
    ),
    Case(
        "list_id",
        "Approved",
        "Approved",
        decision=A,
        headers={"list-id": "<legal.lists.example>"},
        automatic=AutomaticKind.AUTO_REPLY,
    ),
    Case("auto_submitted_no", "Approved", "Approved", decision=A, headers={"auto-submitted": "no"}),
    Case(
        "dsn_content_type",
        "Delivery to the following recipient failed permanently.",
        "Delivery to the following recipient failed permanently.",
        subject="Delivery Status Notification (Failure)",
        content_type='multipart/report; report-type="delivery-status"; boundary="b1"',
        automatic=AutomaticKind.BOUNCE,
    ),
    Case(
        "null_return_path_undeliverable",
        "Your message could not be delivered.",
        "Your message could not be delivered.",
        subject="Undeliverable: [HFA-00042] Legal review",
        headers={"return-path": "<>"},
        automatic=AutomaticKind.BOUNCE,
    ),
    Case(
        "mailer_daemon_failed",
        "This message was created automatically by mail delivery software.",
        "This message was created automatically by mail delivery software.",
        subject="Mail delivery failed: returning message to sender",
        headers={"from": "Mail Delivery System <MAILER-DAEMON@mx.example.com>"},
        automatic=AutomaticKind.BOUNCE,
    ),
    Case(
        "human_undeliverable_subject",
        "Ha, funny subject.",
        "Ha, funny subject.",
        subject="Undeliverable: [HFA-00042] Legal review",
        headers={"return-path": "<jane@doe-partners.example>"},
    ),
    Case(
        "ordinary_subject_mentions_oof",
        "Approved.",
        "Approved.",
        decision=A,
        subject="Re: [HFA-00042] Legal review: out of office policy",
    ),
]
