"""What ends a reply without being part of the answer: a signature block with no delimiter.

``split`` already sets aside what a mail client marks ("-- ", disclaimers, "Sent from my
iPhone", a closing such as "Best regards," and the lines under it). Lawyers' clients often
add none of these: the answer ends with a name, or with a block of name, title, firm,
phone and address. Read as text, those lines became the conditions of an approval
("Dana", "Partner", "+49 30 ...").

This stage cuts, from the end of the new text, a trailing block in which every line is a
name, initials, a title, a firm, a phone number, an e-mail address, a URL, a postal
address or a confidentiality notice, and only when the block holds no word that could
say something about the request (a negation, a decision, a condition or a hold-back of
any table). What is cut is kept and shown on the receipt, so a wrong cut can be
corrected within the window.
"""

from __future__ import annotations

import re

from gateway.replies.lexicon import LEXICON
from gateway.replies.negation import is_negator
from gateway.replies.phrases import find, merged_index
from gateway.replies.signature import is_signoff
from gateway.replies.statement import kinds_in
from gateway.replies.words import words

# A block of contact details is a few lines; a longer run is text.
_MAX_BLOCK = 10
_MAX_LINE = 120
_MAX_WORDS = 8

_PHONE = re.compile(r"\+?\(?\d[\d ()./-]{6,}\d")
_EMAIL = re.compile(r"\S+@\S+\.\w+")
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_CONTACT_LABEL = re.compile(
    r"^(?:t|f|m|e|w|p|d|tel|tél|tlf|tlm|fax|mob|mobile|mobil|cell|phone|telefon|telefono|teléfono|"
    r"kom|gsm|cel|celular|móvil|movil|handy|port|portable|tfn|mobiel|direkt|direkte|puh|"
    r"т|м|ф|факс|моб|тел|"
    r"telefone|puh|puhelin|тел|моб|電話|电话|手机|携帯|e-?mail|mail|web|dir|direct|office|"
    r"büro|bureau|ufficio|kantoor)\.?\s*[:.]?\s*",
    re.IGNORECASE,
)
# A name or a firm: one to six words, each capitalised (initials, particles and "&" allowed).
_NAME_WORD = (
    r"(?:[A-ZÀ-ÞĀ-ŽА-ЯІЇЄҐ][\w.'’-]*|(?:von|van|der|den|de|la|le|du|da|di|del|dos|y|zu|ter)|&|"
    r"[A-ZÀ-Þ]\.)"
)
_NAME = re.compile(rf"^[\s\-–—~/*_]*{_NAME_WORD}(?:[\s,]+{_NAME_WORD}){{0,5}}[\s.,]*$")
# Initials signed under a reply ("DW", "-d", "/JS").
_INITIALS = re.compile(r"^\s*[-–—~/]?\s*[A-Za-z]{1,3}\.?\s*$")
# Names in scripts without capitals: a short line of letters only.
_CJK_NAME = re.compile(
    r"^\s*(?:[\u3040-\u30ff\u3400-\u9fff]{2,4}|[\u3400-\u9fff]{1,3}[ \u3000][\u3040-\u30ff\u3400-\u9fff]{1,3})\s*$"
)
# Titles and firm forms, in the table languages.
_TITLE = re.compile(
    r"(?:\b(?:partner|partnerin|associate|counsel|attorney|lawyer|solicitor|barrister|"
    r"paralegal|legal|general\s+counsel|head\s+of|director|manager|senior|managing|"
    r"rechtsanwalt|rechtsanwältin|rechtsanwälte|fachanwalt|fachanwältin|syndikus|justiziar|"
    r"justiziarin|notar|notarin|kanzlei|avocat|avocate|avocats|juriste|associé|associée|"
    r"abogado|abogada|abogados|letrado|letrada|socio|socia|avvocato|avvocata|avvocati|"
    r"advocaat|advocaten|jurist|juristin|advokat|advokater|advokatfirma|advokaatti|"
    r"asianajaja|asianajotoimisto|lakimies|adwokat|radca|kancelaria|advokátka|advokát|"
    r"advogado|advogada|advogados|адвокат|юрист|юрисконсульт|партнер|партнёр|"
    r"partners|wspólnicy|partnerzy|associés|asociados|associati|advokátní|kancelář|"
    r"advokatbyrå|advokatfirma|advokatfirmaet|asianajotoimisto|abogados|avvocati|"
    r"llp|llc|ltd|gmbh|ag|mbb|partg|kg|sas|sarl|s\.a\.|s\.l\.|b\.v\.|n\.v\.|s\.r\.l\.|"
    r"s\.p\.a\.|a/s|ab|as|oy|sp\.\s*z\s*o\.o\.|s\.r\.o\.|ltda|ооо|тов|ll\.?m\.?|esq\.?|"
    r"dr\.|prof\.|mr\.|ms\.|mrs\.|me|mag\.|mgr\.|ing\.)(?!\w)"
    r"|弁護士|法律事務所|律师|律師|律师事务所|法务|株式会社|有限公司|パートナー"
    # Cyrillic titles and firms in every case ("партнёры", "Коллегия адвокатов").
    r"|(?:адвокат|партн[её]р|юрист|юрисконсульт|коллеги|юридическ|юридичн|адвокатськ)\w*)",
    re.IGNORECASE,
)
# Titles and firm forms that are also everyday words ("copy me", "as agreed"): a title
# only as a signature writes it ("Me Dupont", "Nordic Law AS"), never in lower case.
_WORD_TITLES = frozenset({"me", "as", "ab", "ag", "kg", "sas"})


def _has_title(text: str) -> bool:
    return any(
        not (match.group().lower() in _WORD_TITLES and match.group().islower())
        for match in _TITLE.finditer(text)
    )


# A postal address: a street with its number, or a postcode with its town.
_ADDRESS = re.compile(
    r"(?:\d+\s*\w*\s*(?:street|st\.|avenue|ave\.?|road|rd\.|square|place|lane|blvd)\b"
    r"|\b\w*(?:straße|strasse|str\.|weg|platz|allee|gasse|ring|damm|ufer|straat|gracht|laan|"
    r"plein|kade|gade|vej|gatan|gata|gate|veien|vägen|katu|tie)\s+\d"
    r"|(?:^|\s)c/\s*\S"
    r"|\b(?:rue|avenue|boulevard|bd|place|quai|calle|avenida|av\.|paseo|plaza|via|viale|"
    r"piazza|corso|rua|praça|ul\.|ulica|al\.|aleje|ulice|náměstí|ул\.|улица|вул\.|вулиця|"
    r"пр\.|проспект)\s+\S"
    r"|\b\d{1,5}\s*(?:[,/-]\s*\d{1,5})?\s*,?\s*(?:\d{2}-\d{3}|\d{3}\s?\d{2}|\d{4,5})\s+[A-ZÀ-ÞА-Я]"
    r"|^\s*(?:[A-Z]{1,2}-)?\d{4,5}\s+[A-ZÀ-ÞА-Я][\w-]+"
    r"|^\s*[A-Z]{1,2}\d{1,2}[A-Z]?\s+\d[A-Z]{2}\b"
    r"|(?:suite|floor|etage|étage|piso|piano|verdieping|stock)\s+\d"
    r"|[都道府県市区町村]\S*\d|\d+号|\S+路\d|\S+街\d"
    # A capitalised street or town with its number or postcode ("Neuer Wall 54",
    # "New York, NY 10036", "London WC1R 4HE", "411 36 Göteborg").
    r"|^[\w.'’ -]{0,40}?\b[A-ZÀ-Þ][\w.'’-]+,?\s+\d{1,4}[a-z]?\s*(?:[,–-].*)?$"
    r"|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b|\b[A-Z]{2}\s+\d{5}\b|^\s*\d{3}\s\d{2}\s+[A-ZÀ-Þ])",
    re.IGNORECASE,
)
# A confidentiality notice in one long line, as Outlook appends it.
_NOTICE = re.compile(
    r"\b(?:confidential|privileged|intended\s+(?:solely|only|recipient)|received\s+this\s+"
    r"(?:e-?mail|message)\s+in\s+error|vertraulich|confidentiel|confidencial|riservat|"
    r"vertrouwelijk|fortrolig|konfidentiell|konfidensiell|luottamuksellinen|poufn|důvěrn|"
    r"конфиденциальн|конфіденційн)|機密|秘密|保密|机密",
    re.IGNORECASE,
)


def cut_contact_block(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` without its trailing contact block, and the lines cut (empty if none)."""
    text, notice = _without_notice(text)
    kept, block = _without_block(text)
    if block or notice:
        # The closing above the block ("Un saludo,", "S pozdravem") goes with it.
        lines = kept.rstrip().split("\n")
        while len(lines) > 1 and (not lines[-1].strip() or is_signoff(lines[-1])):
            closing = lines.pop().strip()
            block = (closing, *block) if closing else block
        kept = "\n".join(lines).rstrip()
    return kept, (*block, *notice)


# A notice says both what it protects and who it is for ("confidential" and "intended
# recipient"): a lawyer's own sentence that merely says "confidential" is not one.
_NOTICE_FOR = re.compile(
    r"intended|in\s+error|recipient|addressee|destinataire|par\s+erreur|empfänger|irrtümlich|"
    r"destinatari|por\s+error|per\s+errore|geadresseerde|abusievelijk|mottagare|modtager|"
    r"mottaker|vastaanottaja|adresat|adresát|omylem|адресат|по\s+ошибке|помилков|"
    r"宛先|誤って|收件人|误收",
    re.IGNORECASE,
)
_MIN_NOTICE = 100


def _without_notice(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` without a confidentiality notice (and what follows it) in its last part."""
    paragraphs = re.split(r"\n\s*\n", text.rstrip())
    for index in range(max(1, len(paragraphs) - 4), len(paragraphs)):
        paragraph = paragraphs[index]
        if (
            len(paragraph) >= _MIN_NOTICE
            and _NOTICE.search(paragraph)
            and _NOTICE_FOR.search(paragraph)
        ):
            rest = "\n\n".join(paragraphs[index:])
            lines = tuple(line.strip() for line in rest.split("\n") if line.strip())
            return "\n\n".join(paragraphs[:index]), lines
    return text, ()


def _without_block(text: str) -> tuple[str, tuple[str, ...]]:
    lines = text.rstrip().split("\n")
    end = len(lines)
    start = end
    seen = 0
    while start > 0 and seen < _MAX_BLOCK:
        line = lines[start - 1]
        if line.strip() and not (
            _signature_line(line) and _says_nothing(line) and not _clause(line)
        ):
            break
        seen += bool(line.strip())
        start -= 1
    block = [line.strip() for line in lines[start:end] if line.strip()]
    kept = "\n".join(lines[:start]).rstrip()
    if not block or not kept.strip() or start == end:
        return text, ()
    if not _only_contact(block, kept):
        return text, ()
    return kept, tuple(block)


def is_signature_line(line: str) -> bool:
    """A line of a signature block (a name, a title, a firm, a phone, an address) that says
    nothing about the request: never a condition, wherever the reader found it."""
    stripped = line.strip()
    return (
        bool(stripped)
        and not _OBJECT.match(stripped)
        and not _sentence_words(stripped)
        and _signature_line(stripped)
        and (_says_nothing(stripped))
    )


# Lowercase words that are neither a title nor a label: a line with this many is a clause
# ("pure il ricorso nel RG 4421/2024"), whatever number or capital it also holds.
_SENTENCE_WORDS = 3


def _clause(line: str) -> bool:
    """A line that reads as a clause of the answer ("- copy me on the email"), not as a
    line of a signature block; an address, a contact line or a confidentiality notice
    is one however many small words it has ("Paseo de la Castellana 89, 4ª planta")."""
    if _ADDRESS.search(line) or _contact(line) or _NOTICE.search(line):
        return False
    return _sentence_words(line)


def _label(word: str) -> bool:
    """The whole word is a contact label ("tel.", "m:"), not a word that starts like one."""
    match = _CONTACT_LABEL.match(word)
    return match is not None and match.end() == len(word)


def _sentence_words(line: str) -> bool:
    plain = [
        word
        for word in line.split()
        if word[:1].islower() and not _has_title(word) and not _label(word)
    ]
    return len(plain) >= _SENTENCE_WORDS


def _signature_line(line: str) -> bool:
    stripped = line.strip()
    if len(stripped) > _MAX_LINE:
        # A long line is text, unless it is the confidentiality notice of a client.
        return bool(_NOTICE.search(stripped))
    if _CONTACT_LABEL.match(stripped) and (_PHONE.search(stripped) or _EMAIL.search(stripped)):
        return True
    if _PHONE.fullmatch(stripped.strip(" .")) or _EMAIL.search(stripped) or _URL.search(stripped):
        return True
    if "|" in stripped:
        return all(_signature_line(part) for part in stripped.split("|") if part.strip())
    if len(stripped.split()) > _MAX_WORDS:
        # A sentence that names a director or a street is text, not a signature's line.
        return False
    return bool(
        _has_title(stripped)
        or _ADDRESS.search(stripped)
        or _NAME.match(stripped)
        or _CJK_NAME.match(stripped)
        or _INITIALS.match(stripped)
        or _NOTICE.search(stripped)
    )


def _only_contact(block: list[str], kept: str) -> bool:
    """The block is shaped like a signature, not like the object of the answer."""
    if any(_OBJECT.match(line) for line in block):
        # "For Acme GmbH": the scope of what was approved, not who signed it.
        return False
    if len(block) == 1 and not _contact(block[0]):
        # A lone name ("Dana") signs the reply only after a finished sentence; a single
        # capitalised line after an open one ("Approved for\nAcme GmbH") is its object.
        return kept.rstrip().endswith((".", "!", ",", "?", "。", "！", "…", ")"))
    return True


def _says_nothing(line: str) -> bool:
    """No word of any table that could say something about the request (the words of an
    e-mail address, a URL or a phone number aside: "kn@firm.no" says no "no")."""
    found = words(_URL.sub(" ", _EMAIL.sub(" ", _PHONE.sub(" ", line))))
    if any(is_negator(word.text, everywhere=True) for word in found):
        return False
    if any(word.text in LEXICON.negated_forms for word in found):
        return False
    if kinds_in(line, found):
        return False
    return all(find(found, merged_index(key)) is None for key in _SAYS_SOMETHING)


# Words of any table that say something about the request, wherever they stand.
_SAYS_SOMETHING = ("conditions", "provisos", "holdbacks", "yes", "no", "deferrals", "retractions")
# A line that opens with a preposition names what the answer is for, not a person.
_OBJECT = re.compile(
    r"^\s*(?:for|with|to|from|in|on|at|by|für|mit|an|pour|avec|à|para|con|per|voor|met|"
    r"för|med|til|dla|z|pro|s|для|з|с|на)\s",
    re.IGNORECASE,
)


def _contact(line: str) -> bool:
    return bool(_PHONE.search(line) or _EMAIL.search(line) or _URL.search(line))
