"""Replies as lawyers write them, per language: what each must be read as.

Four tables per language, at least ten replies each:

- ``approval``: plain approvals, inflections, first person, yes words;
- ``rejection``: rejections, including negated approvals that say "no";
- ``negation``: approval words turned around (negated, questioned, made
  conditional on something unmet, retracted): never an approval;
- ``question``: the question keyword, or a first paragraph that asks.

``HELD_BACK`` holds, per language, approvals whose action is held back in part or
in full ("the rest waits", "on hold", "I'll call you"): never a decision.

``FIRST_STEP`` holds, per language, approvals that hand over another step first
("send me the redline beforehand", "zuvor", "en amont"): never a decision; and
``FIRST_STEP_IN_PROVISO`` the same words inside a proviso ("provided the DPA is
signed beforehand"): an approval with conditions. ``DEFERRAL`` holds promises to
answer later ("je te reviens demain"): read as I'M ON IT. ``PROVISIONAL`` holds approvals
given only for now, and ``TURNED_AROUND`` approvals negated in a form of their own
("Genehmigung verweigert") or taken back ("Changed my mind"): never an approval.
"""

from __future__ import annotations

CASES: dict[str, dict[str, list[str]]] = {
    "en": {
        "approval": [
            "Approved.",
            "approve",
            "APPROVED!",
            "I approve.",
            "We approve the NDA as drafted.",
            "I hereby approve the transfer.",
            "Yes.",
            "Yes, go ahead.",
            "OK, go ahead.",
            "Agreed.",
            "Approval granted.",
            "Go ahead.",
            "You may proceed.",
            "Accepted.",
            "Hi team,\n\nApproved - no changes needed.",
        ],
        "rejection": [
            "Rejected.",
            "reject",
            "REJECTED - the cap is too low.",
            "I reject this.",
            "Denied.",
            "No.",
            "No, use version 6.",
            "Not approved.",
            "Do not proceed.",
            "Refused.",
            "We reject the proposal.",
        ],
        "negation": [
            "I do not approve.",
            "I cannot approve this.",
            "We can't approve it yet.",
            "Don't approve yet.",
            "I won't approve the transfer.",
            "Disapproved.",
            "Approved? Not yet.",
            "Approve the NDA as it stands?",
            "Approved if the supplier has signed, which they have not.",
            "Approved - scratch that, I need to check clause 9.",
            "Approved. On second thought, hold off.",
            "I would approve it if the cap were higher.",
            "Approved, never mind, wait for my call.",
        ],
        "question": [
            "Question: who signs for the supplier?",
            "QUESTION - is the DPA attached?",
            "Before I can answer: who signs?",
            "Who is the counterparty?",
            "Can you send me the signed version first?",
            "What is the liability cap?",
            "Is this governed by German law?",
            "Approve or reject? I need the annex first.",
            "Questions: which entity is the buyer?",
            "Hi,\n\nwhich version of the MSA is this?",
        ],
    },
    "de": {
        "approval": [
            "Genehmigt.",
            "genehmigt",
            "Freigegeben!",
            "Ich genehmige.",
            "Ich genehmige das.",
            "Einverstanden.",
            "Ich bin einverstanden.",
            "Ja.",
            "Ja, bitte so umsetzen.",
            "Zugestimmt.",
            "Ich stimme zu.",
            "Hallo,\n\ngenehmigt.",
            "Jawohl.",
            "Freigabe erteilt.",
        ],
        "rejection": [
            "Abgelehnt.",
            "abgelehnt",
            "Ich lehne ab.",
            "Nein.",
            "Nein, bitte Klausel 3 streichen.",
            "Nicht genehmigt.",
            "Nicht freigegeben.",
            "Verweigert.",
            "Wir lehnen ab.",
            "Nicht einverstanden.",
            "Keine Freigabe.",
        ],
        "negation": [
            "Ich genehmige das nicht.",
            "Ich kann das nicht genehmigen.",
            "Das genehmige ich nicht.",
            "Genehmigt? Noch nicht.",
            "Genehmigen Sie das so?",
            "Ungenehmigt.",
            "Genehmigt, wenn der Lieferant unterschrieben hat, was er noch nicht hat.",
            "Genehmigt - nehme ich zurück, bitte warten.",
            "Freigegeben wird das nicht.",
            "Genehmigt. Moment, doch nicht.",
            "Keine Genehmigung von mir.",
        ],
        "question": [
            "Frage: Wer unterschreibt?",
            "Frage - gilt das auch für Töchter?",
            "Rückfrage: welche Fassung ist das?",
            "Wer ist der Vertragspartner?",
            "Bevor ich antworte: wer zeichnet?",
            "Gilt deutsches Recht?",
            "Können Sie mir die unterschriebene Fassung schicken?",
            "Wie hoch ist die Haftungsgrenze?",
            "Ist der AVV beigefügt?",
            "Hallo,\n\nwelche Version ist das?",
        ],
    },
    "fr": {
        "approval": [
            "Approuvé.",
            "approuvée",
            "J'approuve.",
            "J’approuve le contrat.",
            "Oui.",
            "Oui, c'est bon.",
            "D'accord.",
            "Accepté.",
            "Validé.",
            "Je valide.",
            "Bonjour,\n\napprouvé.",
            "Bon pour accord.",
            "Nous approuvons.",
        ],
        "rejection": [
            "Refusé.",
            "refusée",
            "Je refuse.",
            "Rejeté.",
            "Non.",
            "Non, la clause 5 doit partir.",
            "Non approuvé.",
            "Pas d'accord.",
            "Je rejette la proposition.",
            "Nous refusons.",
            "Avis défavorable.",
        ],
        "negation": [
            "Je n'approuve pas.",
            "Je ne peux pas approuver.",
            "Pas approuvé.",
            "Approuvé ? Pas encore.",
            "Approuvez-vous cela ?",
            "Désapprouvé.",
            "Approuvé si le fournisseur a signé, ce qui n'est pas le cas.",
            "Approuvé - je retire, attendez mon appel.",
            "Je n’approuve pas ce transfert.",
            "Approuvé. Réflexion faite, attendez.",
            "Non, je ne valide pas.",
        ],
        "question": [
            "Question : qui signe ?",
            "Question - la DPA est-elle jointe ?",
            "Qui signe pour le fournisseur ?",
            "Avant de répondre : qui est le cocontractant ?",
            "Le droit français s'applique-t-il ?",
            "Pouvez-vous m'envoyer la version signée ?",
            "Quel est le plafond de responsabilité ?",
            "Questions : quelle entité achète ?",
            "Bonjour,\n\nquelle version est-ce ?",
            "Est-ce la dernière version du contrat ?",
        ],
    },
    "es": {
        "approval": [
            "Aprobado.",
            "aprobada",
            "Apruebo.",
            "Sí.",
            "Sí, adelante.",
            "De acuerdo.",
            "Estoy de acuerdo.",
            "Autorizado.",
            "Autorizo la transferencia.",
            "Acepto.",
            "Hola,\n\naprobado.",
            "Visto bueno.",
            "Aprobamos el contrato.",
        ],
        "rejection": [
            "Rechazado.",
            "rechazada",
            "Rechazo.",
            "Denegado.",
            "No.",
            "No, use la versión 6.",
            "No aprobado.",
            "No autorizado.",
            "En desacuerdo.",
            "Rechazamos la propuesta.",
            "No procede.",
        ],
        "negation": [
            "No lo apruebo.",
            "No puedo aprobar esto.",
            "Nunca aprobaré esto.",
            "¿Aprobado? Todavía no.",
            "Aprobado? Aún no.",
            "Desaprobado.",
            "Aprobado si el proveedor ha firmado, lo cual no ha hecho.",
            "Aprobado - me retracto, espere.",
            "No estoy de acuerdo.",
            "Aprobado. Pensándolo mejor, espera.",
            "Sin aprobación por mi parte, no.",
        ],
        "question": [
            "Pregunta: ¿quién firma?",
            "Pregunta - ¿está el DPA adjunto?",
            "¿Quién firma por el proveedor?",
            "Antes de responder: ¿quién es la contraparte?",
            "¿Se aplica la ley española?",
            "¿Puede enviarme la versión firmada?",
            "¿Cuál es el límite de responsabilidad?",
            "Duda: ¿qué entidad compra?",
            "Hola,\n\n¿qué versión es esta?",
            "¿Es la última versión?",
        ],
    },
    "nl": {
        "approval": [
            "Goedgekeurd.",
            "goedgekeurd",
            "Akkoord.",
            "Ik ga akkoord.",
            "Ja.",
            "Ja, ga je gang.",
            "Ga je gang.",
            "Toestemming verleend.",
            "Geaccepteerd.",
            "Beste,\n\nakkoord.",
            "Wij gaan akkoord met het voorstel.",
            "Ik keur het goed.",
        ],
        "rejection": [
            "Afgewezen.",
            "afgekeurd",
            "Ik wijs het af.",
            "Nee.",
            "Nee, gebruik versie 6.",
            "Niet akkoord.",
            "Niet goedgekeurd.",
            "Geweigerd.",
            "Geen toestemming.",
            "Wij wijzen af.",
            "Niet toegestaan.",
        ],
        "negation": [
            "Ik keur dit niet goed.",
            "Ik kan niet akkoord gaan.",
            "Daar ga ik niet mee akkoord.",
            "Akkoord? Nog niet.",
            "Gaat u akkoord?",
            "Goedgekeurd als de leverancier heeft getekend, wat niet zo is.",
            "Akkoord - laat maar, wacht even.",
            "Goedgekeurd. Bij nader inzien, wacht.",
            "Geen akkoord van mij.",
            "Nooit goedgekeurd.",
        ],
        "question": [
            "Vraag: wie tekent?",
            "Vraag - is de verwerkersovereenkomst bijgevoegd?",
            "Wie tekent namens de leverancier?",
            "Voordat ik antwoord: wie is de wederpartij?",
            "Is Nederlands recht van toepassing?",
            "Kunt u mij de getekende versie sturen?",
            "Wat is de aansprakelijkheidslimiet?",
            "Vragen: welke entiteit koopt?",
            "Beste,\n\nwelke versie is dit?",
            "Is dit de laatste versie?",
        ],
    },
    "it": {
        "approval": [
            "Approvato.",
            "approvata",
            "Approvo.",
            "Sì.",
            "Sì, procedete.",
            "D'accordo.",
            "Sono d'accordo.",
            "Autorizzato.",
            "Autorizzo il bonifico.",
            "Accetto.",
            "Buongiorno,\n\napprovato.",
            "Via libera.",
            "Approvato, grazie.",
        ],
        "rejection": [
            "Respinto.",
            "respinta",
            "Rifiutato.",
            "Rifiuto.",
            "No.",
            "No, usate la versione 6.",
            "Non approvato.",
            "Non autorizzato.",
            "Negato.",
            "Non sono d'accordo.",
            "Parere negativo.",
        ],
        "negation": [
            "Non approvo.",
            "Non posso approvare.",
            "Mai approvato.",
            "Approvato? Non ancora.",
            "Approvate questo?",
            "Disapprovato.",
            "Approvato se il fornitore ha firmato, cosa che non ha fatto.",
            "Approvato - ci ho ripensato, aspettate.",
            "Non lo autorizzo.",
            "Approvato. Anzi no, lascia perdere.",
        ],
        "question": [
            "Domanda: chi firma?",
            "Domanda - il DPA è allegato?",
            "Chi firma per il fornitore?",
            "Prima di rispondere: chi è la controparte?",
            "Si applica la legge italiana?",
            "Potete inviarmi la versione firmata?",
            "Qual è il limite di responsabilità?",
            "Quesito: quale società acquista?",
            "Buongiorno,\n\nquale versione è questa?",
            "È l'ultima versione?",
        ],
    },
    "pt": {
        "approval": [
            "Aprovado.",
            "aprovada",
            "Aprovo.",
            "Sim.",
            "Sim, pode prosseguir.",
            "De acordo.",
            "Estou de acordo.",
            "Autorizado.",
            "Autorizo a transferência.",
            "Aceito.",
            "Olá,\n\naprovado.",
            "Concordo.",
            "Deferido.",
        ],
        "rejection": [
            "Rejeitado.",
            "rejeitada",
            "Rejeito.",
            "Recusado.",
            "Não.",
            "Não, use a versão 6.",
            "Não aprovado.",
            "Não autorizado.",
            "Indeferido.",
            "Discordo.",
            "Recuso a proposta.",
        ],
        "negation": [
            "Não aprovo.",
            "Não posso aprovar.",
            "Nunca aprovaria isto.",
            "Aprovado? Ainda não.",
            "Aprova isto?",
            "Desaprovado.",
            "Aprovado se o fornecedor assinou, o que não aconteceu.",
            "Aprovado - retiro, espere.",
            "Não estou de acordo.",
            "Aprovado. Pensando bem, espere.",
        ],
        "question": [
            "Pergunta: quem assina?",
            "Pergunta - o DPA está anexo?",
            "Quem assina pelo fornecedor?",
            "Antes de responder: quem é a contraparte?",
            "Aplica-se a lei portuguesa?",
            "Pode enviar-me a versão assinada?",
            "Qual é o limite de responsabilidade?",
            "Dúvida: que entidade compra?",
            "Olá,\n\nque versão é esta?",
            "É a última versão?",
        ],
    },
    "sv": {
        "approval": [
            "Godkänt.",
            "godkänd",
            "Jag godkänner.",
            "Ja.",
            "Ja, kör på.",
            "Beviljas.",
            "Vi godkänner avtalet.",
            "Godkänns.",
            "Jag accepterar.",
            "Hej,\n\ngodkänt.",
            "Kör.",
            "Ni kan gå vidare.",
        ],
        "rejection": [
            "Avslås.",
            "avslaget",
            "Jag avslår.",
            "Nej.",
            "Nej, använd version 6.",
            "Inte godkänt.",
            "Ej godkänd.",
            "Avvisas.",
            "Nekas.",
            "Underkänt.",
            "Jag avvisar förslaget.",
        ],
        "negation": [
            "Jag godkänner inte.",
            "Jag kan inte godkänna detta.",
            "Det godkänner jag inte.",
            "Godkänt? Inte än.",
            "Godkänner du detta?",
            "Ogodkänd.",
            "Godkänt om leverantören har skrivit under, vilket de inte har.",
            "Godkänt - glöm det, vänta.",
            "Aldrig godkänt.",
            "Godkänt. Jag tar tillbaka det.",
        ],
        "question": [
            "Fråga: vem skriver under?",
            "Fråga - är biträdesavtalet bifogat?",
            "Vem skriver under för leverantören?",
            "Innan jag svarar: vem är motparten?",
            "Gäller svensk lag?",
            "Kan du skicka den undertecknade versionen?",
            "Vad är ansvarstaket?",
            "Frågor: vilket bolag köper?",
            "Hej,\n\nvilken version är detta?",
            "Är detta den senaste versionen?",
        ],
    },
    "da": {
        "approval": [
            "Godkendt.",
            "godkendt",
            "Jeg godkender.",
            "Ja.",
            "Ja, I kan gå videre.",
            "Bevilget.",
            "Vi godkender aftalen.",
            "Accepteret.",
            "Det er i orden.",
            "Hej,\n\ngodkendt.",
            "Grønt lys.",
            "Godkendes.",
        ],
        "rejection": [
            "Afvist.",
            "afvises",
            "Jeg afviser.",
            "Nej.",
            "Nej, brug version 6.",
            "Ikke godkendt.",
            "Afslået.",
            "Nægtet.",
            "Vi afviser forslaget.",
            "Ikke accepteret.",
            "Ikke i orden.",
        ],
        "negation": [
            "Jeg godkender ikke.",
            "Jeg kan ikke godkende dette.",
            "Det godkender jeg ikke.",
            "Godkendt? Ikke endnu.",
            "Godkender du dette?",
            "Ugodkendt.",
            "Godkendt hvis leverandøren har skrevet under, hvilket de ikke har.",
            "Godkendt - glem det, vent.",
            "Aldrig godkendt.",
            "Godkendt. Vent, jeg trækker det tilbage.",
        ],
        "question": [
            "Spørgsmål: hvem skriver under?",
            "Spørgsmål - er databehandleraftalen vedlagt?",
            "Hvem skriver under for leverandøren?",
            "Før jeg svarer: hvem er modparten?",
            "Gælder dansk ret?",
            "Kan du sende den underskrevne version?",
            "Hvad er ansvarsloftet?",
            "Hej,\n\nhvilken version er dette?",
            "Er dette den seneste version?",
            "Hvem er køber?",
        ],
    },
    "nb": {
        "approval": [
            "Godkjent.",
            "godkjent",
            "Jeg godkjenner.",
            "Ja.",
            "Ja, kjør på.",
            "Innvilget.",
            "Vi godkjenner avtalen.",
            "Akseptert.",
            "Det er i orden.",
            "Hei,\n\ngodkjent.",
            "Grønt lys.",
            "Godkjennes.",
        ],
        "rejection": [
            "Avvist.",
            "avvises",
            "Jeg avviser.",
            "Nei.",
            "Nei, bruk versjon 6.",
            "Ikke godkjent.",
            "Avslått.",
            "Nektet.",
            "Vi avviser forslaget.",
            "Ikke akseptert.",
            "Jeg avslår.",
        ],
        "negation": [
            "Jeg godkjenner ikke.",
            "Jeg kan ikke godkjenne dette.",
            "Det godkjenner jeg ikke.",
            "Godkjent? Ikke ennå.",
            "Godkjenner du dette?",
            "Ugodkjent.",
            "Godkjent hvis leverandøren har signert, noe de ikke har.",
            "Godkjent - glem det, vent.",
            "Aldri godkjent.",
            "Godkjent. Vent, jeg trekker det.",
        ],
        "question": [
            "Spørsmål: hvem signerer?",
            "Spørsmål - er databehandleravtalen vedlagt?",
            "Hvem signerer for leverandøren?",
            "Før jeg svarer: hvem er motparten?",
            "Gjelder norsk rett?",
            "Kan du sende den signerte versjonen?",
            "Hva er ansvarstaket?",
            "Hei,\n\nhvilken versjon er dette?",
            "Er dette den siste versjonen?",
            "Hvem er kjøper?",
        ],
    },
    "pl": {
        "approval": [
            "Zatwierdzam.",
            "zatwierdzone",
            "Zatwierdzony.",
            "Akceptuję.",
            "Zaakceptowane.",
            "Zgoda.",
            "Zgadzam się.",
            "Wyrażam zgodę.",
            "Dzień dobry,\n\nzatwierdzam.",
            "Można kontynuować.",
            "Zatwierdzamy umowę.",
        ],
        "rejection": [
            "Odrzucam.",
            "odrzucone",
            "Odrzucony.",
            "Nie.",
            "Nie, proszę użyć wersji 6.",
            "Nie zgadzam się.",
            "Nie akceptuję.",
            "Brak zgody.",
            "Nie wyrażam zgody.",
            "Odmowa.",
            "Nie zatwierdzam.",
        ],
        "negation": [
            "Tego nie zatwierdzam.",
            "Nie mogę tego zatwierdzić.",
            "Nigdy tego nie zaakceptuję.",
            "Zatwierdzone? Jeszcze nie.",
            "Czy to zatwierdzić?",
            "Niezatwierdzone.",
            "Zatwierdzam, jeśli dostawca podpisał, czego nie zrobił.",
            "Zatwierdzam - cofam, proszę czekać.",
            "Tak.",
            "Zatwierdzam. Po namyśle, czekaj.",
        ],
        "question": [
            "Pytanie: kto podpisuje?",
            "Pytanie - czy umowa powierzenia jest załączona?",
            "Kto podpisuje za dostawcę?",
            "Zanim odpowiem: kto jest drugą stroną?",
            "Czy obowiązuje prawo polskie?",
            "Czy może Pan przesłać podpisaną wersję?",
            "Jaki jest limit odpowiedzialności?",
            "Dzień dobry,\n\nktóra to wersja?",
            "Czy to najnowsza wersja?",
            "Kto jest kupującym?",
        ],
    },
    "ru": {
        "approval": [
            "Одобрено.",
            "одобряю",
            "Согласовано.",
            "Согласен.",
            "Согласна.",
            "Утверждаю.",
            "Да.",
            "Да, действуйте.",
            "Разрешаю.",
            "Здравствуйте,\n\nсогласовано.",
            "Утверждено.",
            "Даю согласие.",
        ],
        "rejection": [
            "Отклонено.",
            "отклоняю",
            "Отказано.",
            "Нет.",
            "Нет, используйте версию 6.",
            "Не согласовано.",
            "Не одобрено.",
            "Не согласен.",
            "Запрещаю.",
            "Не утверждаю.",
            "Отвергаю.",
        ],
        "negation": [
            "Я это не одобряю.",
            "Не могу согласовать.",
            "Никогда не одобрю.",
            "Одобрено? Ещё нет.",
            "Вы это одобряете?",
            "Неодобрено.",
            "Одобрено, если поставщик подписал, чего он не сделал.",
            "Одобрено - беру назад, подождите.",
            "Так.",
            "Согласовано. Подождите, отзываю.",
        ],
        "question": [
            "Вопрос: кто подписывает?",
            "Вопрос - приложено ли соглашение об обработке данных?",
            "Кто подписывает за поставщика?",
            "Прежде чем ответить: кто контрагент?",
            "Применяется ли российское право?",
            "Можете прислать подписанную версию?",
            "Каков лимит ответственности?",
            "Здравствуйте,\n\nкакая это версия?",
            "Это последняя версия?",
            "Кто покупатель?",
        ],
    },
    "uk": {
        "approval": [
            "Погоджено.",
            "погоджую",
            "Схвалено.",
            "Схвалюю.",
            "Затверджено.",
            "Згоден.",
            "Згодна.",
            "Дозволяю.",
            "Добрий день,\n\nпогоджено.",
            "Даю згоду.",
            "Затверджую.",
        ],
        "rejection": [
            "Відхилено.",
            "відхиляю",
            "Відмовлено.",
            "Ні.",
            "Ні, використайте версію 6.",
            "Не погоджено.",
            "Не схвалено.",
            "Не згоден.",
            "Забороняю.",
            "Не затверджую.",
        ],
        "negation": [
            "Я це не схвалюю.",
            "Не можу погодити.",
            "Ніколи не погоджу.",
            "Погоджено? Ще ні.",
            "Ви це схвалюєте?",
            "Несхвалено.",
            "Погоджено, якщо постачальник підписав, чого він не зробив.",
            "Погоджено - беру назад, зачекайте.",
            "Так.",
            "Схвалено. Зачекайте, відкликаю.",
        ],
        "question": [
            "Питання: хто підписує?",
            "Питання - чи додано угоду про обробку даних?",
            "Хто підписує за постачальника?",
            "Перш ніж відповісти: хто контрагент?",
            "Чи застосовується українське право?",
            "Чи можете надіслати підписану версію?",
            "Який ліміт відповідальності?",
            "Добрий день,\n\nяка це версія?",
            "Це остання версія?",
            "Хто покупець?",
        ],
    },
    "cs": {
        "approval": [
            "Schvaluji.",
            "schváleno",
            "Schválen.",
            "Souhlasím.",
            "Souhlas.",
            "Ano.",
            "Ano, pokračujte.",
            "Povoleno.",
            "Dobrý den,\n\nschvaluji.",
            "Odsouhlaseno.",
            "Schvalujeme smlouvu.",
        ],
        "rejection": [
            "Zamítám.",
            "zamítnuto",
            "Odmítám.",
            "Ne.",
            "Ne, použijte verzi 6.",
            "Neschvaluji.",
            "Neschváleno.",
            "Nesouhlasím.",
            "Nepovoluji.",
            "Odmítnuto.",
        ],
        "negation": [
            "To neschvaluji.",
            "Nemohu to schválit, ne.",
            "Toto není schváleno.",
            "Schváleno? Ještě ne.",
            "Schvalujete to?",
            "Schváleno, pokud dodavatel podepsal, což neudělal.",
            "Schvaluji - beru zpět, počkejte.",
            "Nikdy neschválím.",
            "Souhlasím. Počkejte, odvolávám.",
            "Nesouhlas.",
        ],
        "question": [
            "Dotaz: kdo podepisuje?",
            "Otázka - je přiložena zpracovatelská smlouva?",
            "Kdo podepisuje za dodavatele?",
            "Než odpovím: kdo je protistrana?",
            "Platí české právo?",
            "Můžete mi poslat podepsanou verzi?",
            "Jaký je limit odpovědnosti?",
            "Dobrý den,\n\nkterá je to verze?",
            "Je to poslední verze?",
            "Kdo je kupující?",
        ],
    },
    "fi": {
        "approval": [
            "Hyväksytty.",
            "hyväksytty",
            "Hyväksyn.",
            "Kyllä.",
            "Kyllä, voitte jatkaa.",
            "Hyväksymme sopimuksen.",
            "Hyväksytään.",
            "Myönnetty.",
            "Hei,\n\nhyväksytty.",
            "Saatte jatkaa.",
            "Olen samaa mieltä.",
        ],
        "rejection": [
            "Hylätty.",
            "hylkään",
            "Hylätään.",
            "Ei.",
            "Ei, käyttäkää versiota 6.",
            "En hyväksy.",
            "Emme hyväksy.",
            "Evätty.",
            "Kielletty.",
            "Ei hyväksytä.",
        ],
        "negation": [
            "Sitä en hyväksy.",
            "En voi hyväksyä tätä.",
            "Tätä ei hyväksytä.",
            "Hyväksytty? Ei vielä.",
            "Hyväksytkö tämän?",
            "Hyväksymätön.",
            "Hyväksytty, jos toimittaja on allekirjoittanut, mitä se ei ole tehnyt.",
            "Hyväksytty - perun, odota.",
            "Hyväksyn. Odota, peruutan.",
            "Ei koskaan hyväksytty.",
        ],
        "question": [
            "Kysymys: kuka allekirjoittaa?",
            "Kysymys - onko tietojenkäsittelysopimus liitteenä?",
            "Kuka allekirjoittaa toimittajan puolesta?",
            "Ennen kuin vastaan: kuka on vastapuoli?",
            "Sovelletaanko Suomen lakia?",
            "Voitteko lähettää allekirjoitetun version?",
            "Mikä on vastuukatto?",
            "Hei,\n\nmikä versio tämä on?",
            "Onko tämä uusin versio?",
            "Kuka on ostaja?",
        ],
    },
    "ja": {
        "approval": [
            "承認します。",
            "承認いたします。",
            "承認しました。",
            "承認。",
            "承認",
            "承認済みです。",
            "同意します。",
            "はい。",
            "はい、進めてください。",
            "許可します。",
            "お世話になっております。\n\n承認します。",
            "進めてください。",
        ],
        "rejection": [
            "却下します。",
            "却下。",
            "拒否します。",
            "承認しません。",
            "承認できません。",
            "いいえ。",
            "いいえ、バージョン6を使ってください。",
            "同意しません。",
            "不承認。",
            "承認いたしかねます。",
        ],
        "negation": [
            "承認しないでください。",
            "まだ承認できません。",
            "承認しますか？",
            "承認が必要です。",
            "承認しますが、取り消します。",
            "未承認です。",
            "承認できかねます。",
            "承認について質問があります。",
            "承認？まだです。",
            "同意できません。",
        ],
        "question": [
            "質問：誰が署名しますか？",
            "質問です。DPAは添付されていますか？",
            "誰が署名しますか？",
            "回答の前に：相手方はどなたですか？",
            "日本法が適用されますか？",
            "署名済みの版を送っていただけますか？",
            "責任上限はいくらですか？",
            "お世話になっております。\n\nどの版ですか？",
            "これは最新版ですか？",
            "買主は誰ですか？",
        ],
    },
    "zh": {
        "approval": [
            "批准。",
            "我批准。",
            "同意。",
            "我同意。",
            "同意执行。",
            "是的。",
            "是。",
            "您好，\n\n同意。",
            "准予。",
            "已批准。",
            "请执行。",
            "核准。",
        ],
        "rejection": [
            "拒绝。",
            "我拒绝。",
            "驳回。",
            "不批准。",
            "不同意。",
            "否决。",
            "不。",
            "不行。",
            "不予批准。",
            "不通过。",
        ],
        "negation": [
            "我不批准。",
            "我不同意这个方案。",
            "没有批准。",
            "批准吗？",
            "同意吗？",
            "未批准。",
            "批准需要董事会同意吗？",
            "同意，但是我要撤回。",
            "我无法批准。",
            "暂不同意。",
        ],
        "question": [
            "问题：谁来签字？",
            "请问谁签字？",
            "谁代表供应商签字？",
            "在回答之前：对方是谁？",
            "适用中国法律吗？",
            "能把签字版发给我吗？",
            "责任上限是多少？",
            "您好，\n\n这是哪个版本？",
            "这是最新版本吗？",
            "疑问：买方是谁？",
        ],
    },
}


# An approval with part or all of the action held back, in the forms lawyers type (3rd
# person, 1st plural, imperative, future, "the rest waits", "pending", "on hold"): no
# decision, typed and under a one-click APPROVE. The comment names the hold-back word.
HELD_BACK: dict[str, list[str]] = {
    "en": [
        "Approved for EUR 10,000 only; the rest is waiting.",  # is waiting
        "Approved for EUR 10,000 only; the other invoices are waiting.",  # are waiting
        "Approved: pay 10k now, the rest waiting for the credit note.",  # waiting for
        "Approved: pay 10k now, the rest waiting on the credit note.",  # waiting on
        "Approved, but the balance should await the credit note.",  # await
        "Approved; the second tranche awaits the credit note.",  # awaits
        "Approved for EUR 10,000; the balance is awaiting the credit note.",  # awaiting
        "Approved, but put the second instalment on hold.",  # on hold
        "Approved, but hold back the second instalment.",  # hold back
        "Approved; we are holding back the retention amount.",  # holding back
        "Approved, but I'm holding off on the second instalment.",  # holding off
        "Approved, but hold payment of the balance.",  # hold payment
        "Approved, but defer the second instalment.",  # defer
        "Approved; the second instalment is deferred.",  # deferred
        "Approved, but postpone the second instalment.",  # postpone
        "Approved; the signing is postponed.",  # postponed
        "Approved, but I'm checking the IBAN with the bank.",  # i'm checking
        "Approved, but I am checking the IBAN with the bank.",  # i am checking
        "Approved; still checking with Anna on the cap.",  # checking with
        "Approved, I'll think about the cap overnight.",  # think about
        "Approved - though I am still thinking about the cap.",  # thinking about
        "Approved; I'll call you about the cap.",  # i'll call
        "Approved; I will call Anna about the cap.",  # i will call
        "Approved; we are discussing the cap with the client.",  # discussing
        "Approved, but the cap is still under review.",  # under review
        "Approved; the cap is to be discussed.",  # to be discussed
        "Approved, the amount is to be confirmed.",  # to be confirmed
        "Approved; the cap is TBD.",  # tbd
        "Approved, amount TBC.",  # tbc
        "Approved; the cap stays open.",  # stays open
        "Approved; the cap remains open.",  # remains open
        "Approved; the cap is still open.",  # still open
    ],
    "de": [
        "Genehmigt. Die Gutschrift für den Rest steht noch aus.",  # steht noch aus
        "Genehmigt. Die Gutschriften für den Rest stehen noch aus.",  # stehen noch aus
        "Genehmigt; die Unterschrift des Kunden ist ausstehend.",  # ausstehend
        "Genehmigt für die erste Rate; die zweite ist noch offen.",  # noch offen
        "Genehmigt für die erste Rate; die zweite bleibt offen.",  # bleibt offen
        "Genehmigt, aber halten Sie die zweite Rate zurück.",  # halten sie * zurück
        "Genehmigt, aber halten wir die zweite Rate zurück.",  # halten wir * zurück
        "Genehmigt, aber die zweite Rate halten wir zurück.",  # halten wir zurück
        "Genehmigt, aber stellen Sie die zweite Rate zurück.",  # stellen sie * zurück
        "Genehmigt; die zweite Rate stellen wir zurück.",  # stellen wir zurück
        "Genehmigt; die zweite Rate wird zurückgestellt.",  # zurückgestellt
        "Genehmigt; die zweite Rate wird zurückgehalten.",  # zurückgehalten
        "Genehmigt, aber verschieben Sie die zweite Rate.",  # verschieben
        "Genehmigt; die Unterschrift ist verschoben.",  # verschoben
        "Genehmigt; die zweite Rate vertagen wir.",  # vertagen
        "Genehmigt; die zweite Rate ist vertagt.",  # vertagt
        "Genehmigt; die zweite Rate wird aufgeschoben.",  # aufgeschoben
        "Genehmigt; den Rest prüfen wir noch.",  # prüfen
        "Genehmigt, ich sehe mir den Rest an.",  # sehe mir
        "Genehmigt; den Rest sollten wir uns noch ansehen.",  # ansehen
        "Genehmigt; den Rest sollten wir uns noch anschauen.",  # anschauen
        "Genehmigt. Bei der zweiten Rate überlege ich noch.",  # überlege
        "Genehmigt; über die zweite Rate sollten wir noch nachdenken.",  # nachdenken
        "Genehmigt; ich denke darüber nach, ob die zweite Rate folgt.",  # denke darüber
        "Genehmigt für die erste Rate; ich denke noch über die zweite nach.",  # denke noch
        "Genehmigt; die zweite Rate bespreche ich mit Frau Keller.",  # bespreche
        "Genehmigt. Ich spreche noch mit Frau Keller über die zweite Rate.",  # spreche
        "Genehmigt; wegen der zweiten Rate telefoniere ich mit Frau Keller.",  # telefoniere
        "Genehmigt; ich rufe Sie wegen der zweiten Rate an.",  # rufe sie
        "Genehmigt, ich rufe dich wegen der zweiten Rate an.",  # rufe dich
        "Genehmigt; wir melden uns wegen der zweiten Rate.",  # melden uns
        "Genehmigt; wegen der zweiten Rate melden wir uns.",  # melden wir uns
        "Genehmigt; die zweite Rate klären wir noch.",  # klären
        "Genehmigt; die zweite Rate kläre ich noch mit Frau Keller.",  # kläre
        "Genehmigt, die zweite Rate bitte on hold.",  # on hold
        "Genehmigt; die zweite Rate bleibt vorläufig gesperrt.",  # vorläufig
        "Genehmigt, aber die zweite Rate bitte aussetzen.",  # aussetzen
        "Genehmigt; die zweite Rate wird ausgesetzt.",  # ausgesetzt
        "Genehmigt; die zweite Rate setzen wir aus.",  # setzen wir aus
        "Genehmigt, aber setzen Sie die zweite Rate aus.",  # setzen sie * aus
        "Genehmigt; die zweite Rate pausiert.",  # pausiert
        "Genehmigt, die zweite Rate bitte pausieren.",  # pausieren
    ],
    "fr": [
        "Approuvé, mais les autres factures attendent l'avoir.",  # attendent
        "Approuvé ; les autres paiements attendront l'avoir.",  # attendront
        "Approuvé pour 10 000 EUR en attendant l'avoir.",  # en attendant
        "Approuvé, le reste peut patienter.",  # patienter
        "Approuvé, mais patientez pour le reste.",  # patientez
        "Approuvé, mais suspendez le second versement.",  # suspendez
        "Approuvé, mais il faut suspendre le second versement.",  # suspendre
        "Approuvé ; le second versement est suspendu.",  # suspendu
        "Approuvé ; la signature est suspendue.",  # suspendue
        "Approuvé, mais reportez le second versement.",  # reportez
        "Approuvé ; le second versement est reporté.",  # reporté
        "Approuvé ; la signature est reportée.",  # reportée
        "Approuvé, mais différez le second versement.",  # différez
        "Approuvé, mais il faut différer le second versement.",  # différer
        "Approuvé ; le second versement est différé.",  # différé
        "Approuvé ; je regarderai le reste lundi.",  # regarderai
        "Approuvé ; le reste, on regarde ça lundi.",  # on regarde
        "Approuvé ; nous regardons le reste lundi.",  # regardons
        "Approuvé ; je vérifierai le reste lundi.",  # vérifierai
        "Approuvé ; le reste, on vérifie lundi.",  # on vérifie
        "Approuvé ; nous vérifions le reste lundi.",  # vérifions
        "Approuvé ; pour le reste, j'y réfléchis.",  # réfléchis
        "Approuvé ; pour le reste, j'y réfléchirai.",  # réfléchirai
        "Approuvé ; je vous appelle pour le reste.",  # je vous appelle
        "Approuvé ; on s'appelle pour le reste.",  # on s'appelle
        "Approuvé ; je vous appellerai pour le reste.",  # appellerai
        "Approuvé ; pour le reste, on en discute lundi.",  # en discute
        "Approuvé ; pour le reste, on en parle lundi.",  # en parle
        "Approuvé ; le plafond reste à discuter.",  # à discuter
        "Approuvé ; pour le reste, on en reparle lundi.",  # en reparle
        "Approuvé ; pour le reste, nous en reparlerons lundi.",  # en reparlerons
        "Approuvé ; je reviendrai vers vous pour le reste.",  # je reviendrai
        "Approuvé, mais bloquez le second versement.",  # bloquez
        "Approuvé ; le second versement reste bloqué.",  # reste bloqué
        "Approuvé ; le second versement est en stand-by.",  # stand-by
        "Approuvé ; le second versement est en standby.",  # standby
        "Approuvé ; le second versement est on hold.",  # on hold
        "Approuvé ; le second versement est en cours de vérification.",  # en cours de vérification
        "Approuvé ; le second versement est en cours d'examen.",  # en cours d'examen
    ],
    "es": [
        "Aprobado, pero esperen al abono para el resto.",  # esperen
        "Aprobado; los demás pagos esperan el abono.",  # esperan
        "Aprobado; para el resto esperaremos el abono.",  # esperaremos
        "Aprobado; los demás pagos esperarán el abono.",  # esperarán
        "Aprobado, pero aguarde al abono para el resto.",  # aguarde
        "Aprobado, pero aguarden al abono para el resto.",  # aguarden
        "Aprobado; el resto debe aguardar al abono.",  # aguardar
        "Aprobado; para el resto aguardamos el abono.",  # aguardamos
        "Aprobado; el resto aguardará al abono.",  # aguardará
        "Aprobado, pero retenga el segundo pago.",  # retenga
        "Aprobado, pero retengan el segundo pago.",  # retengan
        "Aprobado; el segundo pago lo retenemos.",  # retenemos
        "Aprobado; el segundo pago queda pendiente.",  # queda pendiente
        "Aprobado; los demás pagos quedan pendientes.",  # quedan pendientes
        "Aprobado; el segundo pago sigue pendiente.",  # sigue pendiente
        "Aprobado, pero pospón el segundo pago.",  # pospón
        "Aprobado, pero posponga el segundo pago.",  # posponga
        "Aprobado, pero pospongan el segundo pago.",  # pospongan
        "Aprobado; hay que posponer el segundo pago.",  # posponer
        "Aprobado; el segundo pago se pospone.",  # pospone
        "Aprobado; el segundo pago queda pospuesto.",  # pospuesto
        "Aprobado, pero aplace el segundo pago.",  # aplace
        "Aprobado, pero aplacen el segundo pago.",  # aplacen
        "Aprobado; hay que aplazar el segundo pago.",  # aplazar
        "Aprobado; el segundo pago queda aplazado.",  # aplazado
        "Aprobado; el segundo pago lo aplazamos.",  # aplazamos
        "Aprobado; el segundo pago lo revisaré el lunes.",  # revisaré
        "Aprobado; al resto le echo un vistazo el lunes.",  # echo un vistazo
        "Aprobado; echaré un vistazo al resto el lunes.",  # echaré un vistazo
        "Aprobado; te llamo por el resto.",  # te llamo
        "Aprobado; le llamo por el resto.",  # le llamo
        "Aprobado; te llamaré por el resto.",  # te llamaré
        "Aprobado; le llamaré por el resto.",  # le llamaré
        "Aprobado; el resto lo hablaremos el lunes.",  # lo hablaremos
        "Aprobado; el resto lo consulto con Ana.",  # consulto
        "Aprobado; el resto lo pienso.",  # lo pienso
        "Aprobado; lo del resto lo pensaré.",  # lo pensaré
        "Aprobado; el resto, la semana próxima.",  # la semana próxima
        "Aprobado; el resto, la próxima semana.",  # la próxima semana
        "Aprobado; el resto queda en stand-by.",  # stand-by
        "Aprobado, pero suspenda el segundo pago.",  # suspenda
        "Aprobado; hay que suspender el segundo pago.",  # suspender
        "Aprobado; el segundo pago queda suspendido.",  # suspendido
    ],
    "nl": [
        "Akkoord; de rest graag afwachten.",  # afwachten
        "Akkoord, maar hou de rest aan.",  # hou de
        "Akkoord, maar hou het restbedrag aan.",  # hou het
        "Akkoord; de rest houden we aan.",  # houden we aan
        "Akkoord; de rest wordt aangehouden.",  # aangehouden
        "Akkoord, maar stel de rest uit.",  # stel * uit
        "Akkoord; de rest stellen we uit.",  # stellen we uit
        "Akkoord; de rest graag uitstellen.",  # uitstellen
        "Akkoord; de rest wordt uitgesteld.",  # uitgesteld
        "Akkoord; de rest bekijk ik maandag.",  # bekijk
        "Akkoord; de rest bekijken we maandag.",  # bekijken
        "Akkoord; de rest kijk ik maandag na.",  # kijk ik
        "Akkoord; voor de rest: ik denk erover na.",  # denk erover
        "Akkoord voor het eerste deel; over het tweede deel denk ik nog na.",  # denk ik nog
        "Akkoord; voor de rest: ik overleg met Anna.",  # ik overleg
        "Akkoord; over de rest overleg ik met Anna.",  # overleg ik
        "Akkoord; de rest bespreek ik met Anna.",  # bespreek
        "Akkoord; over de rest moeten we bellen.",  # bellen
        "Akkoord; de rest staat on hold.",  # on hold
        "Akkoord; de rest staat nog open.",  # nog open
        "Akkoord; de rest parkeren we.",  # parkeren
    ],
    "it": [
        "Approvato; il resto può aspettare.",  # aspettare
        "Approvato; gli altri pagamenti aspettano la nota di credito.",  # aspettano
        "Approvato; per il resto aspetteremo la nota di credito.",  # aspetteremo
        "Approvato; gli altri pagamenti aspetteranno la nota di credito.",  # aspetteranno
        "Approvato, ma attenda la nota di credito per il resto.",  # attenda
        "Approvato, ma attendete la nota di credito per il resto.",  # attendete
        "Approvato; il resto attende la nota di credito.",  # attende
        "Approvato; per il resto attendiamo la nota di credito.",  # attendiamo
        "Approvato; il resto in attesa della nota di credito.",  # in attesa
        "Approvato, ma sospendete il secondo pagamento.",  # sospendete
        "Approvato, ma sospenda il secondo pagamento.",  # sospenda
        "Approvato; bisogna sospendere il secondo pagamento.",  # sospendere
        "Approvato; il secondo pagamento è sospeso.",  # sospeso
        "Approvato; il secondo pagamento lo rimandiamo.",  # rimandiamo
        "Approvato; meglio rimandare il secondo pagamento.",  # rimandare
        "Approvato; il secondo pagamento è rimandato.",  # rimandato
        "Approvato; il secondo pagamento lo rinviamo.",  # rinviamo
        "Approvato; meglio rinviare il secondo pagamento.",  # rinviare
        "Approvato; il secondo pagamento è rinviato.",  # rinviato
        "Approvato; il secondo pagamento lo guarderò lunedì.",  # guarderò
        "Approvato; al secondo pagamento do un'occhiata lunedì.",  # do un'occhiata
        "Approvato; al secondo pagamento darò un'occhiata lunedì.",  # darò un'occhiata
        "Approvato; il secondo pagamento lo verifico lunedì.",  # verifico
        "Approvato; il secondo pagamento è da verificare.",  # verificare
        "Approvato; il secondo pagamento lo verificherò lunedì.",  # verificherò
        "Approvato; il secondo pagamento lo controllerò lunedì.",  # controllerò
        "Approvato; per il secondo pagamento sento Anna.",  # sento
        "Approvato; per il secondo pagamento sentiamoci.",  # sentiamoci
        "Approvato; per il secondo pagamento ti chiamo.",  # ti chiamo
        "Approvato; per il secondo pagamento la chiamo.",  # la chiamo
        "Approvato; per il secondo pagamento vi chiamo.",  # vi chiamo
        "Approvato; per il secondo pagamento ne parlo con il socio.",  # ne parlo
        "Approvato; il secondo pagamento lo discutiamo lunedì.",  # discutiamo
        "Approvato; il secondo pagamento: dobbiamo discuterne.",  # discuterne
        "Approvato; per il secondo pagamento ne riparliamo.",  # riparliamo
        "Approvato; al secondo pagamento ci penso.",  # ci penso
        "Approvato; al secondo pagamento ci penserò.",  # ci penserò
        "Approvato; il secondo pagamento la settimana prossima.",  # la settimana prossima
        "Approvato; le do una risposta definitiva nel pomeriggio.",  # nel pomeriggio
        "Approvato; le do una risposta definitiva oggi pomeriggio.",  # oggi pomeriggio
    ],
    "pt": [
        "Aprovado; o resto vai aguardar a nota de crédito.",  # aguardar
        "Aprovado, mas aguardem a nota de crédito para o resto.",  # aguardem
        "Aprovado; para o resto aguardamos a nota de crédito.",  # aguardamos
        "Aprovado; o resto aguardará a nota de crédito.",  # aguardará
        "Aprovado; os outros pagamentos aguardam a nota de crédito.",  # aguardam
        "Aprovado; os outros pagamentos aguardarão a nota de crédito.",  # aguardarão
        "Aprovado; o resto esperará a nota de crédito.",  # esperará
        "Aprovado; os outros pagamentos esperam a nota de crédito.",  # esperam
        "Aprovado; os outros pagamentos esperarão a nota de crédito.",  # esperarão
        "Aprovado; o segundo pagamento fica pendente.",  # fica pendente
        "Aprovado; os outros pagamentos ficam pendentes.",  # ficam pendentes
        "Aprovado, mas suspenda o segundo pagamento.",  # suspenda
        "Aprovado, mas suspendam o segundo pagamento.",  # suspendam
        "Aprovado; é melhor suspender o segundo pagamento.",  # suspender
        "Aprovado; o segundo pagamento fica suspenso.",  # suspenso
        "Aprovado, mas adie o segundo pagamento.",  # adie
        "Aprovado, mas adiem o segundo pagamento.",  # adiem
        "Aprovado; é melhor adiar o segundo pagamento.",  # adiar
        "Aprovado; o segundo pagamento fica adiado.",  # adiado
        "Aprovado; o segundo pagamento adiamos.",  # adiamos
        "Aprovado, mas segurem o segundo pagamento.",  # segurem
        "Aprovado; o resto vou ver com a Ana.",  # vou ver
        "Aprovado; o resto verei com a Ana.",  # verei
        "Aprovado; o resto verifico com a Ana.",  # verifico
        "Aprovado; sobre o resto eu ligo-lhe.",  # ligo
        "Aprovado; sobre o resto ligarei à Ana.",  # ligarei
        "Aprovado; quanto ao resto, penso nisso com calma.",  # penso nisso
        "Aprovado; o resto, na semana que vem.",  # semana que vem
        "Aprovado; dou-lhe uma resposta sobre o resto esta tarde.",  # esta tarde
        "Aprovado; dou-lhe uma resposta sobre o resto hoje à tarde.",  # hoje à tarde
        "Aprovado; o segundo pagamento fica parado.",  # fica parado
        "Aprovado; o segundo pagamento fica bloqueado.",  # fica bloqueado
    ],
    "sv": [
        "Godkänt; vi avvaktar kreditnotan för resten.",  # avvaktar
        "Godkänt; resten inväntar kreditnotan.",  # inväntar
        "Godkänt, men skjut upp resten.",  # skjut upp
        "Godkänt; vi skjuter upp resten.",  # skjuter upp
        "Godkänt; resten skjuts upp.",  # skjuts upp
        "Godkänt; andra delbetalningen är uppskjuten.",  # uppskjuten
        "Godkänt, men pausa resten av betalningen.",  # pausa
        "Godkänt; resten ska jag titta på.",  # titta på
        "Godkänt; resten kollar jag med Anna.",  # kollar
        "Godkänt; jag ringer om resten.",  # jag ringer
        "Godkänt; om resten ringer jag Anna.",  # ringer jag
        "Godkänt; vi pratar om resten.",  # pratar
        "Godkänt; vi diskuterar resten.",  # diskuterar
        "Godkänt; på resten funderar jag.",  # funderar
        "Godkänt; resten betalar vi nästa vecka.",  # nästa vecka
        "Godkänt; resten i eftermiddag.",  # i eftermiddag
        "Godkänt; resten on hold.",  # on hold
        "Godkänt; resten parkerar vi.",  # parkerar
        "Godkänt; resten ligger vilande.",  # vilande
    ],
    "da": [
        "Godkendt; vi afventer kreditnotaen for resten.",  # afventer
        "Godkendt; resten kan vente.",  # kan vente
        "Godkendt; resten skal vente.",  # skal vente
        "Godkendt, men udsæt resten.",  # udsæt
        "Godkendt; resten udsættes.",  # udsættes
        "Godkendt, men udskyd resten.",  # udskyd
        "Godkendt; resten udskydes.",  # udskydes
        "Godkendt; resten er udskudt.",  # udskudt
        "Godkendt; jeg ser på resten.",  # ser på
        "Godkendt; resten tjekker jeg.",  # tjekker
        "Godkendt; jeg ringer om resten.",  # jeg ringer
        "Godkendt; om resten ringer jeg til Anna.",  # ringer jeg
        "Godkendt; vi drøfter resten.",  # drøfter
        "Godkendt; vi tager en snak om resten.",  # en snak
        "Godkendt; vi snakker om resten.",  # snakker om
        "Godkendt; jeg tænker over resten.",  # tænker over
        "Godkendt; resten overvejer jeg.",  # overvejer
        "Godkendt; resten næste uge.",  # næste uge
        "Godkendt; resten i eftermiddag.",  # i eftermiddag
        "Godkendt; resten on hold.",  # on hold
        "Godkendt; resten parkerer vi.",  # parkerer
        "Godkendt; resten sættes i bero.",  # i bero
    ],
    "nb": [
        "Godkjent; vi avventer kreditnotaen for resten.",  # avventer
        "Godkjent; resten kan vente.",  # kan vente
        "Godkjent; resten skal vente.",  # skal vente
        "Godkjent, men utsett resten.",  # utsett
        "Godkjent; resten utsettes.",  # utsettes
        "Godkjent; resten er utsatt.",  # utsatt
        "Godkjent; resten sjekker jeg.",  # sjekker
        "Godkjent; resten må vi se på.",  # se på
        "Godkjent; jeg ringer om resten.",  # jeg ringer
        "Godkjent; om resten ringer jeg til Anna.",  # ringer jeg
        "Godkjent; vi diskuterer resten.",  # diskuterer
        "Godkjent; vi snakker om resten.",  # snakker om
        "Godkjent; jeg tenker på resten.",  # tenker på
        "Godkjent; jeg tenker over resten.",  # tenker over
        "Godkjent; resten neste uke.",  # neste uke
        "Godkjent; resten i ettermiddag.",  # i ettermiddag
        "Godkjent; resten on hold.",  # on hold
        "Godkjent; resten parkerer vi.",  # parkerer
        "Godkjent; resten settes i bero.",  # i bero
    ],
    "pl": [
        "Zatwierdzam, ale z resztą poczekaj.",  # poczekaj
        "Zatwierdzam, ale z resztą zaczekaj.",  # zaczekaj
        "Zatwierdzam, ale z resztą zaczekajcie.",  # zaczekajcie
        "Zatwierdzam, ale z resztą proszę zaczekać.",  # zaczekać
        "Zatwierdzam; reszta zaczeka.",  # zaczeka
        "Zatwierdzam; pozostałe płatności czekają na korektę.",  # czekają
        "Zatwierdzam; na korektę do reszty czekamy.",  # czekamy
        "Zatwierdzam; reszta musi czekać.",  # czekać
        "Zatwierdzam; pozostałe płatności poczekają.",  # poczekają
        "Zatwierdzam; reszta oczekuje na korektę.",  # oczekuje
        "Zatwierdzam; pozostałe płatności oczekują na korektę.",  # oczekują
        "Zatwierdzam pierwszą ratę, reszta w oczekiwaniu na korektę.",  # w oczekiwaniu
        "Zatwierdzam; resztę wstrzymujemy.",  # wstrzymujemy
        "Zatwierdzam; druga rata jest wstrzymana.",  # wstrzymana
        "Zatwierdzam; pozostałe płatności są wstrzymane.",  # wstrzymane
        "Zatwierdzam, ale odłóżmy resztę.",  # odłóżmy
        "Zatwierdzam; resztę odkładamy.",  # odkładamy
        "Zatwierdzam; resztę trzeba odłożyć.",  # odłożyć
        "Zatwierdzam; druga rata jest odłożona.",  # odłożona
        "Zatwierdzam; resztę sprawdzę.",  # sprawdzę
        "Zatwierdzam; resztę sprawdzimy.",  # sprawdzimy
        "Zatwierdzam; zadzwonię w sprawie reszty.",  # zadzwonię
        "Zatwierdzam; resztę omówimy.",  # omówimy
        "Zatwierdzam; o reszcie porozmawiamy.",  # porozmawiamy
        "Zatwierdzam; o reszcie pomyślę.",  # pomyślę
        "Zatwierdzam; nad resztą się zastanowię.",  # zastanowię
        "Zatwierdzam; reszta w zawieszeniu.",  # w zawieszeniu
    ],
    "ru": [
        "Одобряю; остальные платежи ждут кредит-ноту.",  # ждут
        "Одобряю; остальное будет ждать кредит-ноту.",  # ждать
        "Одобряю; остальные платежи подождут.",  # подождут
        "Одобряю; по остальному ждём кредит-ноту.",  # ждём
        "Одобряю; по остальному ждем кредит-ноту.",  # ждем
        "Одобряю; остальное ожидает кредит-ноты.",  # ожидает
        "Одобряю; остальные платежи ожидают кредит-ноты.",  # ожидают
        "Одобряю; остальное в ожидании кредит-ноты.",  # в ожидании
        "Одобряю; по остальному дождёмся кредит-ноты.",  # дождёмся
        "Одобряю; по остальному дождемся кредит-ноты.",  # дождемся
        "Одобряю, но приостановите остальное.",  # приостановите
        "Одобряю; остальное надо приостановить.",  # приостановить
        "Одобряю; остальное отложим.",  # отложим
        "Одобряю; остальное посмотрим.",  # посмотрим
        "Одобряю; остальное проверим.",  # проверим
        "Одобряю; по остальному позвоню.",  # позвоню
        "Одобряю; по остальному созвонимся.",  # созвонимся
        "Одобряю; об остальном подумаю.",  # подумаю
        "Одобряю; остальное на следующей неделе.",  # на следующей неделе
        "Одобряю; с остальным повременим.",  # повременим
        "Одобряю; остальное гляну.",  # гляну
    ],
    "uk": [
        "Погоджую, але з рештою почекайте.",  # почекайте
        "Погоджую; решта платежів чекають кредит-ноту.",  # чекають
        "Погоджую; решта має чекати.",  # чекати
        "Погоджую; щодо решти чекаємо кредит-ноту.",  # чекаємо
        "Погоджую; решта платежів почекають.",  # почекають
        "Погоджую; щодо решти зачекаємо на кредит-ноту.",  # зачекаємо
        "Погоджую; решта має зачекати.",  # зачекати
        "Погоджую; решта очікує кредит-ноту.",  # очікує
        "Погоджую; решта в очікуванні кредит-ноти.",  # в очікуванні
        "Погоджую, але призупиніть решту.",  # призупиніть
        "Погоджую; решту відкладемо.",  # відкладемо
        "Погоджую; решту подивимося.",  # подивимося
        "Погоджую; решту подивимось.",  # подивимось
        "Погоджую; решту подивлюсь.",  # подивлюсь
        "Погоджую; решту перевіримо.",  # перевіримо
        "Погоджую; щодо решти зателефоную.",  # зателефоную
        "Погоджую; щодо решти передзвоню.",  # передзвоню
        "Погоджую; щодо решти зідзвонимося.",  # зідзвонимося
        "Погоджую; решту обговоримо.",  # обговоримо
        "Погоджую; про решту подумаю.",  # подумаю
        "Погоджую; решту наступного тижня.",  # наступного тижня
    ],
    "cs": [
        "Schvaluji, ale se zbytkem počkej.",  # počkej
        "Schvaluji; ostatní platby čekají na dobropis.",  # čekají
        "Schvaluji; na dobropis ke zbytku čekáme.",  # čekáme
        "Schvaluji; ostatní platby počkají.",  # počkají
        "Schvaluji, ale se zbytkem vyčkejte.",  # vyčkejte
        "Schvaluji; zbytek musí vyčkat.",  # vyčkat
        "Schvaluji; se zbytkem vyčkáme.",  # vyčkáme
        "Schvaluji; zbytek pozdržíme.",  # pozdržíme
        "Schvaluji; zbytek odložíme.",  # odložíme
        "Schvaluji; zbytek je odložen.",  # odložen
        "Schvaluji; podepsání je odloženo.",  # odloženo
        "Schvaluji; zbytek si projdu.",  # projdu
        "Schvaluji; zbytek prověřím.",  # prověřím
        "Schvaluji; zbytek zkontroluji.",  # zkontroluji
        "Schvaluji; zbytek zkontroluju.",  # zkontroluju
        "Schvaluji; zbytek ověřím.",  # ověřím
        "Schvaluji; kvůli zbytku vám zavolám.",  # zavolám
        "Schvaluji; zbytek probereme.",  # probereme
        "Schvaluji; zbytek si rozmyslím.",  # rozmyslím
        "Schvaluji; zbytek zvážím.",  # zvážím
        "Schvaluji, ale pozastavte zbytek.",  # pozastavte
        "Schvaluji; zbytek je třeba pozastavit.",  # pozastavit
        "Schvaluji; zbytek je pozastaven.",  # pozastaven
        "Schvaluji; zbytek příští týden.",  # příští týden
    ],
    "fi": [
        "Hyväksytty; muut maksut odottavat hyvityslaskua.",  # odottavat
        "Hyväksytty; loppujen osalta odotellaan hyvityslaskua.",  # odotellaan
        "Hyväksytty; loput jää odottamaan.",  # odottamaan
        "Hyväksytty; loput lykätään.",  # lykätään
        "Hyväksytty; loput lykkääntyy.",  # lykkääntyy
        "Hyväksytty; loput katsotaan.",  # katsotaan
        "Hyväksytty; loput tarkistan.",  # tarkistan
        "Hyväksytty; loput tarkistetaan.",  # tarkistetaan
        "Hyväksytty; loppujen osalta soitan.",  # soitan
        "Hyväksytty; loppuja mietin.",  # mietin
        "Hyväksytty; loppuja harkitsen.",  # harkitsen
        "Hyväksytty; loput ensi viikolla.",  # ensi viikolla
        "Hyväksytty; loput iltapäivällä.",  # iltapäivällä
        "Hyväksytty; loput jäädytetään.",  # jäädytetään
        "Hyväksytty; loput on pidossa.",  # pidossa
        "Hyväksytty; loput laitetaan jäihin.",  # jäihin
    ],
    "ja": [
        "承認します。残りは待機してください。",  # 待機
        "承認します。残りは後日。",  # 後日
        "承認します。残りは延期します。",  # 延期
        "承認します。残りは見送ります。",  # 見送
        "承認します。残りは確認させてください。",  # 確認させて
        "承認します。残りは確認中です。",  # 確認中
        "承認します。残りは検討中です。",  # 検討中
        "承認します。残りは部長と相談します。",  # 相談します
        "承認します。残りは電話します。",  # 電話します
        "承認します。残りは入金待ちです。",  # 待ち
        "承認します。残りはペンディングで。",  # ペンディング
        "承認します。残りは止めておいてください。",  # 止めて
        "承認します。残りはストップしてください。",  # ストップ
        "承認します。残りは午後に。",  # 午後
    ],
    "zh": [
        "批准。其余部分等待贷项通知单。",  # 等待
        "批准。其余部分等候通知。",  # 等候
        "批准。其余部分待定。",  # 待定
        "批准。其余款项推迟支付。",  # 推迟
        "批准。其餘部分推遲。",  # 推遲
        "批准。其余部分延后。",  # 延后
        "批准。其餘部分延後。",  # 延後
        "批准。其余款项延期支付。",  # 延期
        "批准。其余部分我再看看。",  # 再看
        "批准。其余部分我考虑一下。",  # 考虑一下
        "批准。其餘部分我考慮一下。",  # 考慮一下
        "批准。其余部分我研究一下。",  # 研究一下
        "批准。其余部分我们商量一下。",  # 商量一下
        "批准。其餘部分我打電話給你。",  # 打電話
        "批准。其余款项下星期再付。",  # 下星期
        "批准。其余部分下礼拜。",  # 下礼拜
        "批准。其餘部分下禮拜。",  # 下禮拜
        "批准。其余部分下午。",  # 下午
        "批准。其余部分暂时不付。",  # 暂时
        "批准。其餘部分暫時不付。",  # 暫時
        "批准。其餘部分暫緩。",  # 暫緩
        "批准。其餘部分暫停。",  # 暫停
        "批准。其餘部分擱置。",  # 擱置
        "批准。其餘部分稍後。",  # 稍後
        "批准。其餘部分我們討論。",  # 討論
        "批准。其餘部分下週。",  # 下週
        "批准。其余部分等一等。",  # 等一等
        "批准。其餘部分我再確認。",  # 確認
        "批准。其餘部分我再核實。",  # 核實
        "批准。其餘部分我再審閱。",  # 審閱
        "批准。其餘部分我晚點回覆你。",  # 回覆你
        "批准。其餘部分我晚點答覆。",  # 答覆
        "批准。其餘部分再說。",  # 再說
        "批准。其餘部分需董事會批准。",  # 董事會批准
        "批准。其餘部分待股東批准後。",  # 批准後
        "批准。其餘部分午飯後。",  # 午飯後
        "批准。其餘部分和律師商量後。",  # 商量後
    ],
}


# An approval whose object is another step first ("send me the redline prior to signing",
# "im Voraus", "en amont", "事前"), in the words lawyers type for "first": no decision,
# typed and under a one-click APPROVE. The comment names the first-step word.
FIRST_STEP: dict[str, list[str]] = {
    "en": [
        "Approved; firstly, send me the signed DPA.",  # firstly
        "Approved, send me the signed DPA to begin with.",  # to begin with
        "Approved, but send me the redline to start with.",  # to start with
        "Approved, send me the redline for starters.",  # for starters
        "Approved, send me the redline at the outset.",  # at the outset
        "Approved, but get the signed DPA ahead of signing.",  # ahead of
        "Approved, but send me the redline prior to signing.",  # prior to
    ],
    "de": [
        "Genehmigt, lassen Sie die AVV zuvor unterschreiben.",  # zuvor
        "Genehmigt, lassen Sie die AVV davor unterschreiben.",  # davor
        "Genehmigt, lassen Sie die AVV im Voraus unterschreiben.",  # im voraus
        "Genehmigt, lassen Sie die AVV im Vorhinein unterschreiben.",  # im vorhinein
        "Genehmigt, lassen Sie die AVV vorweg unterschreiben.",  # vorweg
        "Genehmigt, lassen Sie die AVV vorneweg unterschreiben.",  # vorneweg
        "Genehmigt, lassen Sie die AVV erstmal unterschreiben.",  # erstmal
        "Genehmigt, lassen Sie als Erstes die AVV unterschreiben.",  # als erstes
        "Genehmigt, lassen Sie zuallererst die AVV unterschreiben.",  # zuallererst
        "Genehmigt, lassen Sie allererst die AVV unterschreiben.",  # allererst
        "Genehmigt; erstens lassen Sie die AVV unterschreiben.",  # erstens
        "Genehmigt, lassen Sie die AVV vorgängig unterschreiben.",  # vorgängig
        "Genehmigt, lassen Sie die AVV im Vorfeld unterschreiben.",  # im vorfeld
    ],
    "fr": [
        "Approuvé, envoyez-moi le projet en premier.",  # en premier
        "Approuvé ; premièrement, envoyez-moi le projet.",  # premièrement
        "Approuvé, envoyez-moi le projet en amont.",  # en amont
        "Approuvé, envoyez-moi le projet auparavant.",  # auparavant
        "Approuvé ; dans un premier temps, envoyez-moi le projet.",  # dans un premier temps
        "Approuvé ; pour commencer, envoyez-moi le projet.",  # pour commencer
        "Approuvé ; obtenez l'accord préalable du conseil.",  # préalable
        "Approuvé ; obtenez les accords préalables du conseil.",  # préalables
        "Approuvé, envoyez-moi le projet jusqu'à ce qu'il soit signé.",  # jusqu'à ce qu'il
        "Approuvé, envoyez-moi les projets jusqu'à ce qu'ils soient signés.",  # jusqu'à ce qu'ils
        "Approuvé, envoyez-moi la version jusqu'à ce qu'elle soit signée.",  # jusqu'à ce qu'elle
        "Approuvé, envoyez-moi les versions jusqu'à ce qu'elles soient signées.",  # jusqu'à ce qu'elles
        "Approuvé, envoyez-moi le projet jusqu'à ce qu'on signe.",  # jusqu'à ce qu'on
    ],
    "es": [
        "Aprobado, envíame primeramente el borrador.",  # primeramente
        "Aprobado; en primer lugar, envíame el borrador.",  # en primer lugar
        "Aprobado, envíame el borrador de antemano.",  # de antemano
        "Aprobado, envíame el borrador con antelación.",  # con antelación
        "Aprobado, envíame el borrador con anticipación.",  # con anticipación
        "Aprobado, envíame el borrador por adelantado.",  # por adelantado
        "Aprobado; para empezar, envíame el borrador.",  # para empezar
        "Aprobado; para comenzar, envíame el borrador.",  # para comenzar
        "Aprobado; ante todo, envíame el borrador.",  # ante todo
    ],
    "pt": [
        "Aprovado, envie-me primeiramente a minuta.",  # primeiramente
        "Aprovado, envie-me a minuta de antemão.",  # de antemão
        "Aprovado, envie-me a minuta com antecedência.",  # com antecedência
        "Aprovado, envie-me a minuta com antecipação.",  # com antecipação
        "Aprovado, envie-me a minuta antecipadamente.",  # antecipadamente
        "Aprovado; para começar, envie-me a minuta.",  # para começar
    ],
    "it": [
        "Approvato, mandami anzitutto la bozza.",  # anzitutto
        "Approvato, mandami innanzi tutto la bozza.",  # innanzi tutto
        "Approvato; per prima cosa mandami la bozza.",  # per prima cosa
        "Approvato; in primo luogo mandami la bozza.",  # in primo luogo
        "Approvato, mandami dapprima la bozza.",  # dapprima
        "Approvato, mandami preliminarmente la bozza.",  # preliminarmente
        "Approvato, mandami la bozza in via preliminare.",  # in via preliminare
        "Approvato, mandami la bozza in anticipo.",  # in anticipo
        "Approvato, mandami anticipatamente la bozza.",  # anticipatamente
        "Approvato, mandami la bozza fino a quando non firmano.",  # fino a quando
        "Approvato, mandami la bozza fino a che non firmano.",  # fino a che
    ],
    "nl": [
        "Akkoord, laat allereerst de verwerkersovereenkomst tekenen.",  # allereerst
        "Akkoord; ten eerste de verwerkersovereenkomst laten tekenen.",  # ten eerste
        "Akkoord; om te beginnen de verwerkersovereenkomst laten tekenen.",  # om te beginnen
        "Akkoord; in eerste instantie de verwerkersovereenkomst laten tekenen.",  # in eerste instantie
        "Akkoord, laat de verwerkersovereenkomst vantevoren tekenen.",  # vantevoren
        "Akkoord, laat de verwerkersovereenkomst van te voren tekenen.",  # van te voren
        "Akkoord, laat de verwerkersovereenkomst op voorhand tekenen.",  # op voorhand
        "Akkoord, laat de verwerkersovereenkomst tevoren tekenen.",  # tevoren
        "Akkoord, laat de verwerkersovereenkomst voordien tekenen.",  # voordien
        "Akkoord, laat de verwerkersovereenkomst tekenen voorafgaand aan de betaling.",  # voorafgaand
        "Akkoord, laat de verwerkersovereenkomst tekenen vooraleer te betalen.",  # vooraleer
        "Akkoord, laat de verwerkersovereenkomst tekenen alvorens te betalen.",  # alvorens
    ],
    "sv": [
        "Godkänt, skicka mig utkastet före undertecknandet.",  # före
        "Godkänt, skicka mig utkastet på förhand.",  # på förhand
        "Godkänt, skicka mig utkastet dessförinnan.",  # dessförinnan
        "Godkänt, skicka mig utkastet till dess.",  # till dess
        "Godkänt; till att börja med, skicka mig utkastet.",  # till att börja med
    ],
    "da": [
        "Godkendt, send mig udkastet allerførst.",  # allerførst
        "Godkendt, send mig udkastet forinden.",  # forinden
        "Godkendt, send mig udkastet forud for underskriften.",  # forud for
        "Godkendt, indhent forudgående samtykke fra bestyrelsen.",  # forudgående
        "Godkendt; til at begynde med, send mig udkastet.",  # til at begynde med
    ],
    "nb": [
        "Godkjent, send meg utkastet forinnen.",  # forinnen
        "Godkjent, send meg utkastet forut for signeringen.",  # forut for
        "Godkjent, send meg utkastet i forkant.",  # i forkant
        "Godkjent; til å begynne med, send meg utkastet.",  # til å begynne med
    ],
    "fi": [
        "Hyväksytty, lähetä minulle aluksi luonnos.",  # aluksi
        "Hyväksytty, lähetä minulle luonnos alkuun.",  # alkuun
        "Hyväksytty, lähetä minulle ensiksi luonnos.",  # ensiksi
        "Hyväksytty; ensinnäkin lähetä minulle luonnos.",  # ensinnäkin
        "Hyväksytty, lähetä minulle ensimmäiseksi luonnos.",  # ensimmäiseksi
        "Hyväksytty, lähetä minulle ensimmäisenä luonnos.",  # ensimmäisenä
        "Hyväksytty, lähetä minulle luonnos ennakkoon.",  # ennakkoon
        "Hyväksytty, lähetä minulle luonnos ennakolta.",  # ennakolta
        "Hyväksytty, lähetä minulle luonnos ennalta.",  # ennalta
    ],
    "pl": [
        "Zatwierdzam, wpierw wyślij mi projekt.",  # wpierw
        "Zatwierdzam, najsampierw wyślij mi projekt.",  # najsampierw
        "Zatwierdzam, na początek wyślij mi projekt.",  # na początek
        "Zatwierdzam; na wstępie wyślij mi projekt.",  # na wstępie
        "Zatwierdzam, w pierwszej kolejności wyślij mi projekt.",  # w pierwszej kolejności
        "Zatwierdzam, przede wszystkim wyślij mi projekt.",  # przede wszystkim
        "Zatwierdzam, wyślij mi projekt zawczasu.",  # zawczasu
        "Zatwierdzam, wyślij mi projekt z wyprzedzeniem.",  # z wyprzedzeniem
        "Zatwierdzam, wyślij mi projekt wstępnie.",  # wstępnie
        "Zatwierdzam, wysyłaj mi projekty, aż podpiszą.",  # aż
    ],
    "cs": [
        "Schvaluji, pošlete mi napřed návrh.",  # napřed
        "Schvaluji, pošlete mi zprvu návrh.",  # zprvu
        "Schvaluji, pošlete mi zpočátku návrh.",  # zpočátku
        "Schvaluji; pro začátek mi pošlete návrh.",  # pro začátek
        "Schvaluji; zaprvé mi pošlete návrh.",  # zaprvé
        "Schvaluji, v první řadě mi pošlete návrh.",  # v první řadě
        "Schvaluji, pošlete mi návrh předtím.",  # předtím
        "Schvaluji, pošlete mi návrh dřív než podepíšete.",  # dřív než
        "Schvaluji, pošlete mi návrh dříve než podepíšete.",  # dříve než
        "Schvaluji, pošlete mi návrh v předstihu.",  # v předstihu
        "Schvaluji, pošlete mi návrh s předstihem.",  # s předstihem
        "Schvaluji, pošlete mi návrh předběžně.",  # předběžně
    ],
    "ru": [
        "Одобряю, пришлите мне прежде проект.",  # прежде
        "Одобряю, вначале пришлите мне проект.",  # вначале
        "Одобряю, поначалу пришлите мне проект.",  # поначалу
        "Одобряю, для начала пришлите мне проект.",  # для начала
        "Одобряю, в первую очередь пришлите мне проект.",  # в первую очередь
        "Одобряю; во-первых, пришлите мне проект.",  # во-первых
        "Одобряю, перво-наперво пришлите мне проект.",  # перво
        "Одобряю, пришлите мне проект загодя.",  # загодя
        "Одобряю, пришлите мне проект заблаговременно.",  # заблаговременно
        "Одобряю, пришлите мне проект наперёд.",  # наперёд
        "Одобряю, пришлите мне проект наперед.",  # наперед
        "Одобряю, пришлите мне проект до подписания.",  # до подписания
    ],
    "uk": [
        "Погоджую, насамперед надішліть мені проєкт.",  # насамперед
        "Погоджую, передусім надішліть мені проєкт.",  # передусім
        "Погоджую, перш за все надішліть мені проєкт.",  # перш
        "Погоджую, в першу чергу надішліть мені проєкт.",  # в першу чергу
        "Погоджую, у першу чергу надішліть мені проєкт.",  # у першу чергу
        "Погоджую, надішліть мені проєкт першочергово.",  # першочергово
        "Погоджую, для початку надішліть мені проєкт.",  # для початку
        "Погоджую; по-перше, надішліть мені проєкт.",  # по-перше
        "Погоджую, надішліть мені проєкт наперед.",  # наперед
        "Погоджую, надішліть мені проєкт завчасно.",  # завчасно
        "Погоджую, надішліть мені проєкт зарання.",  # зарання
        "Погоджую, надішліть мені проєкт до підписання.",  # до підписання
    ],
    "ja": [
        "承認します。先ずドラフトを送ってください。",  # 先ず
        "承認します。最初にドラフトを送ってください。",  # 最初に
        "承認します。初めにドラフトを送ってください。",  # 初めに
        "承認します。始めにドラフトを送ってください。",  # 始めに
        "承認します。はじめにドラフトを送ってください。",  # はじめに
        "承認します。第一にドラフトを送ってください。",  # 第一に
        "承認します。前もってドラフトを送ってください。",  # 前もって
        "承認します。あらかじめドラフトを送ってください。",  # あらかじめ
        "承認します。予めドラフトを送ってください。",  # 予め
        "承認します。事前確認のためドラフトを送ってください。",  # 事前
        "承認します。署名の前にドラフトを送ってください。",  # 前に
        "承認します。署名に先立ってドラフトを送ってください。",  # 先立
    ],
    "zh": [
        "批准。请提前把草稿发给我。",  # 提前
        "批准。请事前把草稿发给我。",  # 事前
        "批准。第一步请把草稿发给我。",  # 第一步
        "批准。签署前请把草稿发给我。",  # 签署前
        "批准。簽署前請把草稿發給我。",  # 簽署前
        "批准。签字前请把草稿发给我。",  # 签字前
        "批准。簽字前請把草稿發給我。",  # 簽字前
        "批准。签约前请把草稿发给我。",  # 签约前
        "批准。簽約前請把草稿發給我。",  # 簽約前
    ],
}


# The same first-step words inside a proviso ("provided the DPA is signed beforehand"):
# part of the condition, so still an approval with conditions, typed and under a
# one-click APPROVE. Japanese puts the proviso after the step ("...を条件に承認します"),
# which the reader does not take for a condition; it has no case here.
FIRST_STEP_IN_PROVISO: dict[str, list[str]] = {
    "en": [
        "Approved, provided the DPA is signed prior to payment.",
        "Approved, subject to the DPA being signed ahead of payment.",
        "Approved, provided the DPA is signed to begin with.",
    ],
    "de": [
        "Genehmigt, sofern die AVV zuvor unterschrieben ist.",
        "Genehmigt, vorausgesetzt die AVV wird im Voraus unterschrieben.",
        "Genehmigt, unter der Bedingung, dass die AVV vorweg unterschrieben ist.",
    ],
    "fr": [
        "Approuvé, à condition que la DPA soit signée auparavant.",
        "Approuvé, sous réserve que la DPA soit signée en amont.",
        "Approuvé, sous réserve de l'accord préalable du conseil.",
    ],
    "es": [
        "Aprobado, siempre que el DPA se firme de antemano.",
        "Aprobado, siempre que el DPA se firme con antelación.",
        "Aprobado, siempre y cuando el DPA se firme por adelantado.",
    ],
    "pt": [
        "Aprovado, desde que o DPA seja assinado com antecedência.",
        "Aprovado, desde que o DPA seja assinado de antemão.",
        "Aprovado, contanto que o DPA seja assinado antecipadamente.",
    ],
    "it": [
        "Approvato, purché il DPA sia firmato in anticipo.",
        "Approvato, a condizione che il DPA sia firmato preliminarmente.",
        "Approvato, purché il DPA sia firmato anticipatamente.",
    ],
    "nl": [
        "Goedgekeurd, mits de verwerkersovereenkomst op voorhand getekend is.",
        "Goedgekeurd, mits de verwerkersovereenkomst voorafgaand aan betaling getekend is.",
        "Akkoord, mits de verwerkersovereenkomst vantevoren getekend is.",
    ],
    "sv": [
        "Godkänt, förutsatt att biträdesavtalet undertecknas på förhand.",
        "Godkänt, förutsatt att biträdesavtalet undertecknas före betalningen.",
    ],
    "da": [
        "Godkendt, forudsat at databehandleraftalen underskrives forinden.",
        "Godkendt, forudsat at databehandleraftalen underskrives forud for betalingen.",
    ],
    "nb": [
        "Godkjent, forutsatt at databehandleravtalen signeres i forkant.",
        "Godkjent, forutsatt at databehandleravtalen signeres forut for betalingen.",
    ],
    "fi": [
        "Hyväksytty, edellyttäen että sopimus allekirjoitetaan ennakkoon.",
        "Hyväksytty, edellyttäen että sopimus allekirjoitetaan ennalta.",
    ],
    "pl": [
        "Zatwierdzam, pod warunkiem że umowa zostanie podpisana zawczasu.",
        "Zatwierdzam, pod warunkiem że umowa zostanie podpisana z wyprzedzeniem.",
    ],
    "cs": [
        "Schvaluji, pod podmínkou, že smlouva bude podepsána v předstihu.",
        "Schvaluji, pod podmínkou, že smlouva bude podepsána předtím.",
    ],
    "ru": [
        "Одобряю, при условии что договор будет подписан заблаговременно.",
        "Одобряю, при условии что договор будет подписан загодя.",
    ],
    "uk": [
        "Погоджую, за умови що договір буде підписано завчасно.",
    ],
    "zh": [
        "批准，前提是数据处理协议提前签署。",
        "批准，前提是数据处理协议事前签署。",
        "批准，前提是签署前完成数据处理协议。",
    ],
}


# A promise to answer later in the forms lawyers type ("I'll follow up", "je te reviens",
# "ti rispondo"), with nothing decided: read as I'M ON IT. The comment names the word.
DEFERRAL: dict[str, list[str]] = {
    "en": [
        "I'll follow up tomorrow.",  # i'll follow up
        "I will follow up tomorrow.",  # i will follow up
        "Will look at it tomorrow.",  # will look at it
    ],
    "de": [
        "Ich werde mich melden.",  # werde mich melden
        "Ich werde mich morgen dazu melden.",  # werde mich * melden
        "Ich prüfe es morgen.",  # ich prüfe es
    ],
    "fr": [
        "Je reviens vers toi demain.",  # je reviens vers toi
        "Je te reviens demain.",  # je te reviens
        "Je vous reviendrai demain.",  # je vous reviendrai
        "Je reviendrai vers toi demain.",  # je reviendrai vers toi
        "Je te répondrai demain.",  # je te répondrai
    ],
    "es": [
        "Te respondo mañana.",  # te respondo
        "Le respondo mañana.",  # le respondo
    ],
    "pt": [
        "Respondo-lhe amanhã.",  # respondo-lhe
        "Respondo-te amanhã.",  # respondo-te
        "Dou-te notícias amanhã.",  # dou-te notícias
    ],
    "it": [
        "Ti rispondo domani.",  # ti rispondo
        "Le rispondo domani.",  # le rispondo
        "Vi rispondo domani.",  # vi rispondo
    ],
    "nl": [
        "Ik kom bij je terug.",  # kom bij je terug
        "Ik kom bij u terug.",  # kom bij u terug
        "Ik laat het je morgen weten.",  # laat het je * weten
        "Ik laat het u morgen weten.",  # laat het u * weten
    ],
    "pl": [
        "Odpiszę jutro.",  # odpiszę
    ],
    "ru": [
        "Спасибо, гляну вечером.",  # гляну
    ],
    "uk": [
        "Дякую, гляну ввечері.",  # гляну
        "Подивлюсь завтра.",  # подивлюсь
    ],
    "ja": [
        "明日ご返信します。",  # 返信します
        "明日返信いたします。",  # 返信いたします
    ],
    "zh": [
        "我明天答复。",  # 明天答复
        "我晚点回你。",  # 晚点回你
    ],
}

# Approvals given only for now, provisionally or temporarily: not the lawyer's final word,
# like "in principle". No decision, typed and under a one-click APPROVE.
PROVISIONAL: dict[str, list[str]] = {
    "en": [
        "Approved for the time being.",  # for the time being
        "Approved provisionally.",  # provisionally
        "Approved temporarily.",  # temporarily
        "Approved on an interim basis.",  # on an interim basis
        "Tentatively approved.",  # tentatively
    ],
    "de": [
        "Genehmigt, lassen Sie fürs Erste die AVV unterschreiben.",  # fürs erste
        "Vorübergehend genehmigt.",  # vorübergehend
    ],
    "fr": [
        "Approuvé pour l'heure.",  # pour l'heure
        "Approuvé provisoirement.",  # provisoirement
        "Approuvé temporairement.",  # temporairement
        "Approuvé à titre provisoire.",  # à titre provisoire
    ],
    "es": [
        "Aprobado por el momento.",  # por el momento
        "Aprobado provisionalmente.",  # provisionalmente
        "Aprobado temporalmente.",  # temporalmente
    ],
    "it": [
        "Approvato provvisoriamente.",  # provvisoriamente
        "Approvato temporaneamente.",  # temporaneamente
    ],
    "pt": [
        "Aprovado provisoriamente.",  # provisoriamente
        "Aprovado temporariamente.",  # temporariamente
    ],
    "nl": [
        "Goedgekeurd voor nu.",  # voor nu
        "Tijdelijk goedgekeurd.",  # tijdelijk
    ],
    "sv": [
        "Godkänt för tillfället.",  # för tillfället
        "Godkänt för närvarande.",  # för närvarande
        "Tillfälligt godkänt.",  # tillfälligt
    ],
    "da": [
        "Godkendt foreløbig.",  # foreløbig
        "Godkendt for nuværende.",  # for nuværende
        "Midlertidigt godkendt.",  # midlertidigt
    ],
    "nb": [
        "Godkjent for øyeblikket.",  # for øyeblikket
        "Midlertidig godkjent.",  # midlertidig
    ],
    "fi": [
        "Hyväksytty väliaikaisesti.",  # väliaikaisesti
        "Hyväksytty alustavasti.",  # alustavasti
    ],
    "pl": [
        "Zatwierdzam tymczasowo.",  # tymczasowo
    ],
    "cs": [
        "Schváleno dočasně.",  # dočasně
        "Prozatímně schváleno.",  # prozatímně
    ],
    "ru": [
        "Одобряю временно.",  # временно
    ],
    "uk": [
        "Погоджую тимчасово.",  # тимчасово
    ],
    "ja": [
        "承認します。とりあえず署名してください。",  # とりあえず
        "暫定的に承認します。",  # 暫定
    ],
    "zh": [
        "临时批准。",  # 临时
        "臨時批准。",  # 臨時
    ],
}

# Approvals turned around: the approval word negated in a form of its own ("Approval
# refused", "Genehmigung verweigert", "承認しかねる"), or taken back after it ("Changed my
# mind", "Ich habe es mir anders überlegt", "我改主意了"). Never an approval, typed or typed
# under a one-click APPROVE; the entry that stops each one is named after it.
TURNED_AROUND: dict[str, list[str]] = {
    "en": [
        "Approved. Stop, don't.",  # after the approval: don't do it
        "Approved. Don't do that.",  # after the approval: don't do it
        "Approved. Please don't.",  # after the approval: don't do it
        "Approved. Better not.",  # after the approval: don't do it
        "Approved. Don't.",  # don't, alone
        "Approved. Stop, don't.",  # a lone stop with a negator
        "Approved. Do not.",  # do not, alone
        "Approved. No, cancel.",  # a no with a lone cancel
        "I'm against approving this.",  # against
        "Approval refused.",  # refused
        "Approval is denied.",  # denied
        "I withhold my approval.",  # withhold
        "Approval is withheld.",  # withheld
        "I am withholding approval.",  # withholding
        "I am declining to approve this.",  # declining
        "Approved. Strike that.",  # strike that
        "Approved. Forget it.",  # forget it
        "Approved. Forget I said that.",  # forget i said
        "Approved. I withdraw my approval.",  # i withdraw
        "Approved. I revoke my approval.",  # i revoke
        "Approved. I rescind my approval.",  # i rescind
        "Approved. Cancel my approval.",  # cancel my
        "Approved. I've changed my mind.",  # changed my mind
        "Approved. Hold that thought.",  # hold that thought
        "Approved. Oops, wrong request.",  # wrong request
        "Approved. Sorry, that was meant for another matter.",  # meant for another
        "Approved. Sent in error.",  # sent in error
        "Approved. Sent by mistake.",  # sent by mistake
        "Approved. Apologies, sent too soon.",  # sent too soon
        "Approved. My bad.",  # my bad
        "Approved. Undo that.",  # undo that
        "Approved. Don't act on that.",  # don't act on that
        "Approved. Retracted.",  # retracted
        "Approved. Please treat this as not sent.",  # treat this as not sent
        "Approved. Hold everything.",  # hold everything
        "That is a no from me.",  # a no from me
        "Count me out.",  # count me out
        "I object.",  # i object
        "We object to this.",  # we object to this
        "I have objections.",  # i have objections
        "I have serious objections.",  # i have serious objections
        "I am opposed to this.",  # i am opposed to this
        "I have read the NDA. Count me out.",  # count me out
        "I've gone through it. I object to clause 4.",  # i object to
    ],
    "de": [
        "Genehmigt. Nicht machen.",  # after the approval: don't do it
        "Genehmigt. Bitte nicht.",  # after the approval: don't do it
        "Genehmigt. Tun Sie es nicht.",  # after the approval: don't do it
        "Genehmigt. Machen Sie das nicht.",  # after the approval: don't do it
        "Genehmigt. Lassen Sie das.",  # after the approval: don't do it
        "Genehmigt. Lieber nicht.",  # after the approval: don't do it
        "Ich stimme dem nicht zu.",  # stimme * nicht zu
        "Dem stimme ich nicht zu.",  # stimme ich nicht zu
        "Wir stimmen dem Vertrag nicht zu.",  # stimmen * nicht zu
        "Ich stimme nicht zu.",  # stimme nicht zu
        "Genehmigung verweigert.",  # verweigert
        "Freigabe abgelehnt.",  # abgelehnt
        "Ich lehne die Genehmigung ab.",  # lehne
        "Das gebe ich nicht frei.",  # frei
        "Genehmigt. Vergiss das.",  # vergiss das
        "Genehmigt. Ich ziehe meine Genehmigung zurück.",  # ziehe * zurück
        "Genehmigt. Ich nehme das zurück.",  # nehme * zurück
        "Genehmigt. Zurückgezogen.",  # zurückgezogen
        "Genehmigt. Kommando zurück.",  # kommando zurück
        "Genehmigt. Ich habe es mir anders überlegt.",  # anders überlegt
        "Genehmigt. Streichen Sie das.",  # streichen sie das
        "Genehmigt. Versehentlich gesendet.",  # versehentlich gesendet
        "Genehmigt. Zu früh gesendet.",  # zu früh gesendet
        "Genehmigt. Sorry, falscher Vorgang.",  # falscher vorgang
        "Genehmigt. Mein Fehler.",  # mein fehler
        "Genehmigt. Bitte vergessen.",  # bitte vergessen
        "Genehmigt. Bitte nicht beachten.",  # nicht beachten
        "Genehmigt. Abbrechen.",  # abbrechen
        "Genehmigt. Gegenstandslos.",  # gegenstandslos
        "Genehmigt. Sekunde.",  # sekunde
        "Genehmigt. Augenblick.",  # augenblick
        "Genehmigt. Stopp.",  # stopp
        "Ich sehe das anders.",  # ich sehe das anders
        "Da bin ich anderer Meinung.",  # anderer meinung
        "Ich bin anderer Auffassung.",  # anderer auffassung
        "Das ist ein Nein von mir.",  # ein nein von mir
        "Da mache ich nicht mit.",  # mache ich nicht mit
        "Da kann ich nicht mitgehen.",  # kann ich nicht mitgehen
        "Das kann ich nicht mittragen.",  # nicht mittragen
        "Ich widerspreche.",  # ich widerspreche
        "Wir widersprechen.",  # wir widersprechen
        "Ich erhebe Einspruch.",  # ich erhebe einspruch
        "Ich habe Einwände.",  # ich habe einwände
        "Ich habe erhebliche Bedenken.",  # ich habe erhebliche bedenken
        "Ich habe Bedenken.",  # ich habe bedenken
        "Das kommt überhaupt nicht in Frage.",  # überhaupt nicht in frage
        "Ich bin dagegen.",  # ich bin dagegen
        "Wir sind dagegen.",  # wir sind dagegen
        "Ich habe mir das angesehen. Da mache ich nicht mit.",  # mache ich nicht mit
        "Ich habe die Klausel geprüft. Ich widerspreche.",  # ich widerspreche
        "Ich habe den Vertrag gelesen. Das ist ein Nein von mir.",  # ein nein von mir
        "Das sehe ich nicht so.",  # das sehe ich nicht so
        "Nein danke.",  # nein danke
        "Ich trage das nicht mit.",  # ich trage * nicht mit
        "Ich halte das für falsch und bin dagegen.",  # bin dagegen
    ],
    "fr": [
        "Approuvé. Ne le faites pas.",  # after the approval: don't do it
        "Approuvé. Ne faites pas ça.",  # after the approval: don't do it
        "Approuvé. N'en faites rien.",  # after the approval: don't do it
        "Approuvé. Surtout pas.",  # after the approval: don't do it
        "Approuvé. Plutôt pas.",  # after the approval: don't do it
        "Approbation refusée.",  # refusée
        "Approuvé. Oublie ça.",  # oublie ça
        "Approuvé. J'annule.",  # j'annule
        "Approuvé. J'ai changé d'avis.",  # changé d'avis
        "Approuvé. Je me ravise.",  # je me ravise
        "Approuvé. Désolé, mauvais dossier.",  # mauvais dossier
        "Approuvé. Envoyé par erreur.",  # envoyé par erreur
        "Approuvé. Envoyé trop tôt.",  # envoyé trop tôt
        "Approuvé. Je me suis trompé.",  # je me suis trompé
        "Approuvé. Désolé, erreur.",  # désolé erreur
        "Approuvé. Autant pour moi.",  # autant pour moi
        "Approuvé. Ma faute.",  # ma faute
        "Approuvé. Laissez tomber.",  # laissez tomber
        "Approuvé. Je révoque mon accord.",  # je révoque
        "Approuvé. Ne tenez pas compte de mon message.",  # ne tenez pas compte
        "Je m'y oppose.",  # je m'y oppose
        "Je m'oppose à cela.",  # je m'oppose à cela
        "Nous nous y opposons.",  # nous nous y opposons
        "J'ai des objections.",  # j'ai des objections
        "J'ai des réserves.",  # j'ai des réserves
        "J'ai de sérieuses réserves.",  # j'ai de sérieuses réserves
        "Il n'en est pas question.",  # il n'en est pas question
        "Je suis contre.",  # je suis contre
        "J'ai relu le contrat. Je m'y oppose.",  # je m'y oppose
    ],
    "es": [
        "Aprobado. No lo hagas.",  # after the approval: don't do it
        "Aprobado. No lo haga.",  # after the approval: don't do it
        "Aprobado. No lo hagan.",  # after the approval: don't do it
        "Aprobado. Mejor no.",  # after the approval: don't do it
        "Aprobación denegada.",  # denegada
        "Me niego a aprobarlo.",  # niego
        "Aprobado. Olvídelo.",  # olvídelo
        "Aprobado. Olvida lo anterior.",  # olvida lo
        "Aprobado. Anula eso.",  # anula eso
        "Aprobado. Cancela eso.",  # cancela eso
        "Aprobado. He cambiado de opinión.",  # cambiado de opinión
        "Aprobado. Cambié de opinión.",  # cambié de opinión
        "Aprobado. Enviado por error.",  # enviado por error
        "Aprobado. Perdón, error.",  # perdón error
        "Aprobado. Mi error.",  # mi error
        "Aprobado. Me precipité.",  # me precipité
        "Aprobado. Espérate.",  # espérate
        "Aprobado. Revoco la aprobación.",  # revoco
        "Aprobado. Un momentito.",  # un momentito
        "Aprobado. No hagas caso.",  # no hagas caso
        "Me opongo.",  # me opongo
        "Nos oponemos.",  # nos oponemos
        "Me opongo a esto.",  # me opongo a esto
        "Tengo objeciones.",  # tengo objeciones
        "Tengo reparos.",  # tengo reparos
        "Tengo serias reservas.",  # tengo serias reservas
        "Eso queda descartado.",  # eso queda descartado
        "He leído el contrato. Me opongo.",  # me opongo
    ],
    "it": [
        "Approvato. Non farlo.",  # after the approval: don't do it
        "Approvato. Non lo faccia.",  # after the approval: don't do it
        "Approvato. Non lo fate.",  # after the approval: don't do it
        "Approvato. Meglio di no.",  # after the approval: don't do it
        "Approvato. Lasci stare.",  # after the approval: don't do it
        "Approvazione negata.",  # negata
        "Nego l'approvazione.",  # nego
        "Mi rifiuto di approvare.",  # rifiuto
        "Approvato. Lasciate perdere.",  # lasciate perdere
        "Approvato. Dimenticalo.",  # dimenticalo
        "Approvato. Dimenticate la mail precedente.",  # dimenticate
        "Approvato. Revoco l'approvazione.",  # revoco
        "Approvato. Ho cambiato idea.",  # cambiato idea
        "Approvato. Ci ripenso.",  # ci ripenso
        "Approvato. Scusa, pratica sbagliata.",  # pratica sbagliata
        "Approvato. Inviato per errore.",  # inviato per errore
        "Approvato. Mi sono sbagliato.",  # mi sono sbagliato
        "Approvato. Errore mio.",  # errore mio
        "Approvato. Contrordine.",  # contrordine
        "Approvato. Fermi tutti.",  # fermi tutti
        "Approvato. Non considerare.",  # non considerare
        "Approvato. Non tenerne conto.",  # non tenerne conto
        "Sono in disaccordo.",  # disaccord
        "Mi oppongo.",  # mi oppongo
        "Ci opponiamo.",  # ci opponiamo
        "Mi oppongo a questo.",  # mi oppongo a questo
        "Ho delle obiezioni.",  # ho delle obiezioni
        "Ho obiezioni.",  # ho obiezioni
        "Ho delle riserve.",  # ho delle riserve
        "Ho serie riserve.",  # ho serie riserve
        "Neanche per sogno.",  # neanche per sogno
        "Sono contrario.",  # sono contrario
        "Sono contraria.",  # sono contraria
        "Siamo contrari.",  # siamo contrari
        "Ho riletto il contratto. Mi oppongo.",  # mi oppongo
    ],
    "pt": [
        "Aprovado. Não faça isso.",  # after the approval: don't do it
        "Aprovado. Não o faça.",  # after the approval: don't do it
        "Aprovado. Não faças isso.",  # after the approval: don't do it
        "Aprovado. Melhor não.",  # after the approval: don't do it
        "Aprovado. Deixe estar.",  # after the approval: don't do it
        "Aprovação negada.",  # negada
        "Nego a aprovação.",  # nego
        "Aprovado. Esquece.",  # esquece
        "Aprovado. Desconsidere.",  # desconsidere
        "Aprovado. Ignorem.",  # ignorem
        "Aprovado. Revogo a aprovação.",  # revogo
        "Aprovado. Cancela isso.",  # cancela isso
        "Aprovado. Mudei de ideia.",  # mudei de ideia
        "Aprovado. Volto atrás.",  # volto atrás
        "Aprovado. Desculpe, processo errado.",  # processo errado
        "Aprovado. Enviado por engano.",  # enviado por engano
        "Aprovado. Enganei-me.",  # enganei
        "Aprovado. Erro meu.",  # erro meu
        "Aprovado. Não ligue.",  # não ligue
        "Eu discordo.",  # eu discordo
        "Discordamos.",  # discordamos
        "Oponho-me.",  # oponho-me
        "Eu me oponho.",  # eu me oponho
        "Nós nos opomos.",  # nós nos opomos
        "Tenho objeções.",  # tenho objeções
        "Tenho objecções.",  # tenho objecções
        "Tenho reservas.",  # tenho reservas
        "Tenho sérias reservas.",  # tenho sérias reservas
        "Sou contra.",  # sou contra
        "Sou contra isto.",  # sou contra isto
        "Estou contra.",  # estou contra
        "Revi o contrato. Oponho-me.",  # oponho-me
    ],
    "nl": [
        "Akkoord. Stop, niet doen.",  # after the approval: don't do it
        "Akkoord. Niet doen.",  # after the approval: don't do it
        "Akkoord. Doe het niet.",  # after the approval: don't do it
        "Akkoord. Doe dat niet.",  # after the approval: don't do it
        "Akkoord. Liever niet.",  # after the approval: don't do it
        "Ik keur dit af.",  # keur * af
        "Dit keur ik af.",  # keur ik af
        "Wij keuren het voorstel af.",  # keuren * af
        "Ik wijs dit voorstel af.",  # wijs * af
        "Ik keur het niet goed.",  # keur
        "Goedkeuring geweigerd.",  # geweigerd
        "Goedkeuring ingetrokken.",  # ingetrokken
        "Goedgekeurd. Vergeet mijn vorige mail.",  # vergeet mijn
        "Goedgekeurd. Vergeet dit.",  # vergeet dit
        "Goedgekeurd. Ik ben van gedachten veranderd.",  # van gedachten veranderd
        "Goedgekeurd. Sorry, verkeerd dossier.",  # verkeerd dossier
        "Goedgekeurd. Per ongeluk verzonden.",  # per ongeluk verzonden
        "Goedgekeurd. Foutje.",  # foutje
        "Goedgekeurd. Mijn fout.",  # mijn fout
        "Goedgekeurd. Even geduld.",  # even geduld
        "Goedgekeurd. Schrap dat.",  # schrap dat
        "Goedgekeurd. Annuleer dat.",  # annuleer
        "Goedgekeurd. Toch maar niet.",  # toch maar niet
        "Ik ben het er niet mee eens.",  # niet mee eens
        "Ik ben het niet eens.",  # ik ben het niet eens
        "Ik ben het daar niet mee eens.",  # niet mee eens
        "Wij zijn het er niet mee eens.",  # niet mee eens
        "We zijn het niet eens met dit voorstel.",  # het niet eens met
        "Daar ben ik het niet mee eens.",  # niet mee eens
        "Ik ben het oneens.",  # oneens
        "Ik ben het hiermee oneens.",  # oneens
        "Dat is een nee van mij.",  # een nee van mij
        "Daar kan ik niet in meegaan.",  # niet in meegaan
        "Ik ga hier niet in mee.",  # niet in mee
        "Ik kan me er niet in vinden.",  # niet in vinden
        "Daar kan ik me niet in vinden.",  # niet in vinden
        "Ik maak bezwaar.",  # ik maak bezwaar
        "Ik heb bezwaar.",  # ik heb bezwaar
        "Ik heb bezwaren.",  # ik heb bezwaren
        "Wij hebben bezwaren.",  # wij hebben bezwaren
        "Ik heb ernstige bezwaren.",  # ik heb ernstige bezwaren
        "Ik teken bezwaar aan.",  # teken bezwaar aan
        "Ik ben ertegen.",  # ik ben ertegen
        "Ik ben tegen.",  # ik ben tegen
        "Wij zijn tegen.",  # wij zijn tegen
        "Ik heb het concept gelezen. Ik ben het er niet mee eens.",  # niet mee eens
        "Ik heb de clausule bekeken. Dat is een nee van mij.",  # een nee van mij
        "Ik heb het contract gelezen. Ik maak bezwaar.",  # ik maak bezwaar
        "Ik heb het document bekeken. Daar ga ik niet in mee.",  # niet in mee
        "Ik stem er niet mee in.",  # niet mee in
    ],
    "sv": [
        "Godkänt. Låt bli.",  # after the approval: don't do it
        "Godkänt. Gör det inte.",  # after the approval: don't do it
        "Godkänt. Gör inte det.",  # after the approval: don't do it
        "Godkänt. Låt bli det.",  # after the approval: don't do it
        "Jag vägrar godkänna.",  # vägrar
        "Godkännande nekas.",  # nekas
        "Godkännandet dras tillbaka.",  # dras tillbaka
        "Godkänt. Glöm mitt förra mejl.",  # glöm mitt
        "Godkänt. Bortse från det.",  # bortse från
        "Godkänt. Jag drar tillbaka mitt godkännande.",  # drar * tillbaka
        "Godkänt. Jag har ändrat mig.",  # ändrat mig
        "Godkänt. Fel ärende.",  # fel ärende
        "Godkänt. Skickat av misstag.",  # skickat av misstag
        "Godkänt. Återkallat.",  # återkallat
        "Godkänt. Mitt fel.",  # mitt fel
        "Godkänt. Avbryt.",  # avbryt
        "Godkänt. Sekund.",  # sekund
        "Godkänt. Stryk det.",  # stryk det
        "Det håller jag inte med om.",  # håller jag inte med om
        "Jag är oenig.",  # oenig
        "Vi är oeniga.",  # oenig
        "Det är ett nej från mig.",  # ett nej från mig
        "Det blir nej från mig.",  # nej från mig
        "Det kan jag inte gå med på.",  # kan jag inte gå med på
        "Det kan jag inte ställa mig bakom.",  # inte ställa mig bakom
        "Jag invänder.",  # jag invänder
        "Jag protesterar.",  # jag protesterar
        "Jag har invändningar.",  # jag har invändningar
        "Jag har allvarliga invändningar.",  # jag har allvarliga invändningar
        "Jag har betänkligheter.",  # jag har betänkligheter
        "Det är uteslutet.",  # det är uteslutet
        "Jag är emot.",  # jag är emot
        "Jag är emot det.",  # jag är emot det
        "Vi är emot.",  # vi är emot
        "Jag har tittat på klausulen. Det är ett nej från mig.",  # ett nej från mig
        "Jag har läst avtalet. Jag har invändningar.",  # jag har invändningar
        "Jag har gått igenom dokumentet. Det kan jag inte gå med på.",  # kan jag inte gå med på
        "Det är jag inte med på.",  # inte med på
        "Jag motsätter mig detta.",  # motsätter mig
    ],
    "da": [
        "Godkendt. Lad være.",  # after the approval: don't do it
        "Godkendt. Gør det ikke.",  # after the approval: don't do it
        "Godkendt. Lad være med det.",  # after the approval: don't do it
        "Godkendt. Hellere ikke.",  # after the approval: don't do it
        "Godkendelse afvist.",  # afvist
        "Godkendelsen trækkes tilbage.",  # trækkes tilbage
        "Godkendt. Glem min sidste mail.",  # glem min
        "Godkendt. Jeg har skiftet mening.",  # skiftet mening
        "Godkendt. Forkert sag.",  # forkert sag
        "Godkendt. Sendt ved en fejl.",  # sendt ved en fejl
        "Godkendt. Tilbagekaldt.",  # tilbagekaldt
        "Godkendt. Min fejl.",  # min fejl
        "Godkendt. Annuller det.",  # annuller
        "Godkendt. Øjeblik.",  # øjeblik
        "Godkendt. Et sekund.",  # et sekund
        "Det er jeg ikke enig i.",  # det er jeg ikke enig i
        "Jeg er uenig.",  # uenig
        "Vi er uenige.",  # uenig
        "Jeg er helt uenig.",  # uenig
        "Det kan jeg ikke bakke op om.",  # ikke bakke op om
        "Jeg gør indsigelse.",  # jeg gør indsigelse
        "Jeg protesterer.",  # jeg protesterer
        "Jeg har indvendinger.",  # jeg har indvendinger
        "Jeg har betænkeligheder.",  # jeg har betænkeligheder
        "Jeg har alvorlige forbehold.",  # jeg har alvorlige forbehold
        "Det er udelukket.",  # det er udelukket
        "Jeg er imod.",  # jeg er imod
        "Jeg er imod det.",  # jeg er imod det
        "Vi er imod.",  # vi er imod
        "Jeg har læst kontrakten. Jeg er uenig.",  # uenig
        "Det er jeg ikke med på.",  # ikke med på
    ],
    "nb": [
        "Godkjent. La være.",  # after the approval: don't do it
        "Godkjent. Ikke gjør det.",  # after the approval: don't do it
        "Godkjent. Gjør det ikke.",  # after the approval: don't do it
        "Godkjent. La det være.",  # after the approval: don't do it
        "Godkjenning avslått.",  # avslått
        "Godkjenningen trekkes tilbake.",  # trekkes tilbake
        "Godkjent. Glem forrige e-post.",  # glem forrige
        "Godkjent. Jeg har ombestemt meg.",  # ombestemt
        "Godkjent. Feil sak.",  # feil sak
        "Godkjent. Sendt ved en feil.",  # sendt ved en feil
        "Godkjent. Trukket tilbake.",  # trukket tilbake
        "Godkjent. Min feil.",  # min feil
        "Godkjent. Avbryt.",  # avbryt
        "Godkjent. Øyeblikk.",  # øyeblikk
        "Det er jeg ikke enig i.",  # det er jeg ikke enig i
        "Jeg er uenig.",  # uenig
        "Vi er uenige.",  # uenig
        "Jeg er helt uenig.",  # uenig
        "Det blir nei fra meg.",  # nei fra meg
        "Det kan jeg ikke gå med på.",  # kan jeg ikke gå med på
        "Det kan jeg ikke stille meg bak.",  # ikke stille meg bak
        "Jeg protesterer.",  # jeg protesterer
        "Jeg har innvendinger.",  # jeg har innvendinger
        "Jeg har motforestillinger.",  # jeg har motforestillinger
        "Jeg har alvorlige forbehold.",  # jeg har alvorlige forbehold
        "Det er utelukket.",  # det er utelukket
        "Jeg er imot.",  # jeg er imot
        "Jeg er imot det.",  # jeg er imot det
        "Vi er imot.",  # vi er imot
        "Jeg har lest kontrakten. Jeg er uenig.",  # uenig
        "Jeg har gått gjennom dokumentet. Det kan jeg ikke gå med på.",  # kan jeg ikke gå med på
        "Det er jeg ikke med på.",  # ikke med på
    ],
    "fi": [
        "Hyväksytty. Älä tee sitä.",  # after the approval: don't do it
        "Hyväksytty. Älkää tehkö sitä.",  # after the approval: don't do it
        "Hyväksytty. Älkää.",  # after the approval: don't do it
        "Hyväksytty. Älä.",  # after the approval: don't do it
        "Hyväksyntä evätty.",  # evätty
        "Hyväksytty. Muutin mieleni.",  # muutin mieleni
        "Hyväksytty. Väärä asia.",  # väärä asia
        "Hyväksytty. Lähetetty vahingossa.",  # lähetetty vahingossa
        "Hyväksytty. Peru se.",  # peru se
        "Hyväksytty. Peruttu.",  # peruttu
        "Hyväksytty. Minun virheeni.",  # virheeni
        "Hyväksytty. Älä huomioi.",  # älä huomioi
        "Hyväksytty. Hetki.",  # hetki
        "Hyväksytty. Sekunti.",  # sekunti
        "Olen eri mieltä.",  # eri mieltä
        "Olemme eri mieltä.",  # eri mieltä
        "Olen täysin eri mieltä.",  # eri mieltä
        "Vastustan.",  # vastustan
        "Vastustan tätä.",  # vastustan tätä
        "Vastustamme.",  # vastustamme
        "Minulla on vastalauseita.",  # minulla on vastalauseita
        "Minulla on vastaväitteitä.",  # minulla on vastaväitteitä
        "Minulla on vakavia varauksia.",  # minulla on vakavia varauksia
        "Olen vastaan.",  # olen vastaan
        "Olen sitä vastaan.",  # olen sitä vastaan
        "Olemme vastaan.",  # olemme vastaan
        "Katsoin lausekkeen. Olen eri mieltä.",  # eri mieltä
        "Luin sopimuksen. Vastustan.",  # vastustan
        "Olen eri mieltä tästä lausekkeesta.",  # eri mieltä
    ],
    "pl": [
        "Zatwierdzam. Nie rób tego.",  # after the approval: don't do it
        "Zatwierdzam. Nie róbcie tego.",  # after the approval: don't do it
        "Zatwierdzam. Proszę tego nie robić.",  # after the approval: don't do it
        "Zatwierdzam. Lepiej nie.",  # after the approval: don't do it
        "Zatwierdzenia odmawiam.",  # odmawiam
        "Zatwierdzone. Proszę zapomnieć.",  # zapomnieć
        "Zatwierdzone. Zapomnijcie.",  # zapomnijcie
        "Zatwierdzone. Zignorujcie mój ostatni mail.",  # zignorujcie
        "Zatwierdzone. Zmieniłem zdanie.",  # zmieniłem zdanie
        "Zatwierdzone. Zmieniłam zdanie.",  # zmieniłam zdanie
        "Zatwierdzone. Pomyliłem sprawy.",  # pomyliłem
        "Zatwierdzone. Wysłane przez pomyłkę.",  # wysłane przez pomyłkę
        "Zatwierdzone. Wycofane.",  # wycofane
        "Zatwierdzone. Mój błąd.",  # mój błąd
        "Zatwierdzone. Nieaktualne.",  # nieaktualne
        "Zatwierdzone. Anuluj.",  # anuluj
        "Zatwierdzone. Sekundę.",  # sekundę
        "Jestem przeciw.",  # jestem przeciw
        "Jestem przeciwny.",  # jestem przeciwny
        "Jestem przeciwna.",  # jestem przeciwna
        "Jesteśmy przeciwni.",  # jesteśmy przeciwni
        "Jestem temu przeciwny.",  # jestem temu przeciwny
        "Beze mnie.",  # beze mnie
        "Sprzeciwiam się.",  # sprzeciwiam się
        "Sprzeciwiamy się.",  # sprzeciwiamy się
        "Wnoszę sprzeciw.",  # wnoszę sprzeciw
        "Mam zastrzeżenia.",  # mam zastrzeżenia
        "Mam poważne zastrzeżenia.",  # mam poważne zastrzeżenia
        "Mam obiekcje.",  # mam obiekcje
        "Przeczytałem umowę. Sprzeciwiam się.",  # sprzeciwiam się
    ],
    "cs": [
        "Schvaluji. Nedělejte to.",  # after the approval: don't do it
        "Schvaluji. Nedělej to.",  # after the approval: don't do it
        "Schvaluji. Raději ne.",  # after the approval: don't do it
        "Souhlas nedávám.",  # nedávám
        "Schválení zamítnuto.",  # zamítnuto
        "Toto nebude schváleno.",  # nebude
        "Schváleno. Zapomeň na to.",  # zapomeň
        "Schváleno. Ignoruj můj poslední e-mail.",  # ignoruj
        "Schváleno. Beru to zpět.",  # beru * zpět
        "Schváleno. Rozmyslel jsem si to.",  # rozmyslel
        "Schváleno. Rozmyslela jsem si to.",  # rozmyslela
        "Schváleno. Špatná věc.",  # špatná věc
        "Schváleno. Odesláno omylem.",  # odesláno omylem
        "Schváleno. Odvoláno.",  # odvoláno
        "Schváleno. Moje chyba.",  # moje chyba
        "Schváleno. Zrušte to.",  # zrušte
        "Schváleno. Vteřinku.",  # vteřinku
        "Nejsem srozuměn.",  # nejsem srozuměn
        "Jsem proti.",  # jsem proti
        "Jsem proti tomu.",  # jsem proti tomu
        "Jsme proti.",  # jsme proti
        "Do toho nejdu.",  # do toho nejdu
        "Beze mě.",  # beze mě
        "Se mnou nepočítejte.",  # se mnou nepočítejte
        "Namítám.",  # namítám
        "Vznáším námitku.",  # vznáším námitku
        "Mám námitky.",  # mám námitky
        "Mám vážné výhrady.",  # mám vážné výhrady
        "Mám výhrady.",  # mám výhrady
        "To nepřichází v úvahu.",  # to nepřichází v úvahu
        "V žádném případě.",  # v žádném případě
        "Přečetl jsem smlouvu. Mám námitky.",  # mám námitky
        "Prošel jsem dokument. Do toho nejdu.",  # do toho nejdu
    ],
    "ru": [
        "Одобрено. Не делайте этого.",  # after the approval: don't do it
        "Одобрено. Не делай этого.",  # after the approval: don't do it
        "Одобрено. Не надо.",  # after the approval: don't do it
        "Одобрено. Лучше не надо.",  # after the approval: don't do it
        "Одобрение отклонено.",  # отклонено
        "В одобрении отказано.",  # отказано
        "Одобрено. Забудь.",  # забудь
        "Одобрено. Игнорируй.",  # игнорируй
        "Одобрено. Отменяю.",  # отменяю
        "Одобрено. Я передумал.",  # передумал
        "Одобрено. Я передумала.",  # передумала
        "Одобрено. Не то письмо.",  # не то письмо
        "Одобрено. Отправлено по ошибке.",  # отправлено по ошибке
        "Одобрено. Отозвано.",  # отозвано
        "Одобрено. Моя ошибка.",  # моя ошибка
        "Одобрено. Неактуально.",  # неактуально
        "Одобрено. Не обращай внимания.",  # не обращай внимания
        "Одобрено. Стоп.",  # стоп
        "Одобрено. Погоди.",  # погоди
        "Я против.",  # я против
        "Мы против.",  # мы против
        "Я категорически против.",  # категорически против
        "Я возражаю.",  # я возражаю
        "Мы возражаем.",  # мы возражаем
        "Возражаю.",  # возражаю
        "У меня есть возражения.",  # у меня есть возражения
        "У меня есть замечания и возражения.",  # и возражения
        "У меня серьёзные сомнения.",  # у меня серьёзные сомнения
        "Я на это не пойду.",  # я на это не пойду
        "На это я не пойду.",  # на это я не пойду
        "Это исключено.",  # это исключено
        "Я посмотрела пункт. Я против.",  # я против
        "Я прочитал договор. Я возражаю.",  # я возражаю
        "Я изучил документ. На это я не пойду.",  # на это я не пойду
    ],
    "uk": [
        "Погоджено. Не робіть цього.",  # after the approval: don't do it
        "Погоджено. Не роби цього.",  # after the approval: don't do it
        "Погоджено. Не треба.",  # after the approval: don't do it
        "Погоджено. Краще не треба.",  # after the approval: don't do it
        "Погодження відхилено.",  # відхилено
        "Погоджую. Забудь.",  # забудь
        "Погоджую. Ігноруй.",  # ігноруй
        "Погоджую. Скасовую.",  # скасовую
        "Погоджую. Я передумав.",  # передумав
        "Погоджую. Я передумала.",  # передумала
        "Погоджую. Надіслано помилково.",  # надіслано помилково
        "Погоджую. Відкликано.",  # відкликано
        "Погоджую. Моя помилка.",  # моя помилка
        "Погоджую. Неактуально.",  # неактуально
        "Погоджую. Не звертайте уваги.",  # не звертайте уваги
        "Погоджую. Стоп.",  # стоп
        "Погоджую. Почекай.",  # почекай
        "Я проти.",  # я проти
        "Ми проти.",  # ми проти
        "Я категорично проти.",  # категорично проти
        "Я заперечую.",  # я заперечую
        "Ми заперечуємо.",  # ми заперечуємо
        "Заперечую.",  # заперечую
        "У мене є заперечення.",  # у мене є заперечення
        "Маю заперечення.",  # маю заперечення
        "У мене серйозні сумніви.",  # у мене серйозні сумніви
        "Я на це не піду.",  # я на це не піду
        "На це я не піду.",  # на це я не піду
        "Це виключено.",  # це виключено
        "У жодному разі.",  # у жодному разі
        "Я переглянула пункт. Я проти.",  # я проти
        "Я прочитав договір. Я заперечую.",  # я заперечую
        "Я вивчив документ. На це я не піду.",  # на це я не піду
    ],
    "ja": [
        "承認します。 やめてください。",  # after the approval: don't do it
        "承認します。 しないでください。",  # after the approval: don't do it
        "承認します。 やめて。",  # after the approval: don't do it
        "承認しかねる。",  # かねる
        "承認は難しいです。",  # 難
        "承認します。忘れてください。",  # 忘れて
        "承認します。前のメールは無視して。",  # 無視して
        "承認します。気が変わりました。",  # 気が変わり
        "承認します。誤送信です。",  # 誤送信
        "承認します。送信ミスです。",  # 送信ミス
        "承認します。キャンセルします。",  # キャンセル
        "承認します。すみません、やっぱりなしで。",  # やっぱり
        "承認します。取り下げます。",  # 取り下げ
        "承認します。今のはなしです。",  # 今のはなし
        "反対です。",  # 反対です
        "私は反対です。",  # 反対です
        "私たちは反対です。",  # 反対です
        "異議があります。",  # 異議があります
        "異議を申し立てます。",  # 異議を申し立てます
        "異論があります。",  # 異論があります
        "私の答えはノーです。",  # 答えはノーです
        "答えはノーです。",  # 答えはノーです
        "私としてはノーです。",  # ノーです
        "この件には乗れません。",  # 乗れません
        "私は降ります。",  # 私は降ります
        "私抜きでお願いします。",  # 私抜きで
        "ドラフトを読みました。反対です。",  # 反対です
        "契約書を読みました。異議があります。",  # 異議があります
        "書類を見ました。私は降ります。",  # 私は降ります
        "懸念があります。",  # 懸念があります
    ],
    "zh": [
        "批准。 别做。",  # after the approval: don't do it
        "批准。 不要做。",  # after the approval: don't do it
        "批准。 不要这样做。",  # after the approval: don't do it
        "批准。 别这样做。",  # after the approval: don't do it
        "批准被驳回。",  # 驳
        "恕难批准。",  # 恕, 难
        "批准。我改主意了。",  # 改主意
        "批准。发错了。",  # 发错
        "批准。發錯了。",  # 發錯
        "批准。误发。",  # 误发
        "批准。撤销。",  # 撤销
        "批准。撤銷。",  # 撤銷
        "批准。等下。",  # 等下
        "批准。稍等。",  # 稍等
        "批准。请无视上一封邮件。",  # 无视
        "批准。当我没说。",  # 当我没说
        "批准。刚才那封不算。",  # 封不算
        "我反对。",  # 我反对
        "我们反对。",  # 我们反对
        "我坚决反对。",  # 坚决反对
        "我有异议。",  # 我有异议
        "我持反对意见。",  # 反对意见
        "免谈。",  # 免谈
        "我读了合同。我有异议。",  # 我有异议
        "我反對。",  # 我反對
        "我有異議。",  # 我有異議
    ],
}
