"""Find where the lawyer's own text ends: signatures, mobile footers, disclaimers.

Only whole lines are ever recognised (a sentence that merely contains
"regards" or "sent from" is content), and a sign-off block that contains a
list item is not a signature: "Approved, subject to:" followed by "- a" / "1. b"
keeps every condition.
"""

from __future__ import annotations

import enum
import re

from gateway.replies.patterns import MAX_MARKER_LINE

# RFC 3676 signature delimiter; many clients drop the trailing space. Chinese and
# Japanese mail often draws a rule of full-width dashes above the signature instead.
_DELIMITER = re.compile(r"^(?:--\s?|[—－―]{6,}\s*)$")

# "Sent from my iPhone" and its many translations and siblings. A whole short
# line, so "the draft was sent from my office" stays.
_MOBILE_FOOTER = re.compile(
    r"""^\s*(?:
        sent\s+(?:from|with|via|using)\s+.{1,60}
      | get\s+outlook\s+for\s+.{1,30}
      | von\s+meinem\s+.{1,40}\s+gesendet | gesendet\s+von\s+(?:meinem\s+)?.{1,40}
      | envoyé\s+(?:de|depuis)\s+(?:mon\s+)?.{1,40}
      | enviado\s+(?:desde|de|do)\s+(?:mi|meu\s+|o\s+meu\s+)?.{1,40}
      | inviato\s+da\s+.{1,40}
      | (?:verzonden|verstuurd)\s+(?:vanaf|met|via)\s+.{1,40}
      | skickat\s+från\s+.{1,40} | sendt\s+fra\s+.{1,40}
      | wysłane\s+z\s+.{1,40} | отправлено\s+(?:с|из)\s+.{1,40}
      | .{1,30}から送信 | 发自我的.{1,30} | 從我的.{1,30}傳送 | 发自.{1,30}
    )$""",
    re.IGNORECASE | re.VERBOSE,
)

# Confidentiality disclaimers: everything from here on is boilerplate.
_DISCLAIMER = re.compile(
    r"""^\s*[*\[(]*\s*(?:
        confidentiality\s+notice | confidential(?:ity)?\s*[:\-] | disclaimer\s*[:\-]
      | privileged\s*(?:&|and)\s*confidential
      | (?:this|the)\s+(?:e-?mail|message|communication|transmission)\b.{0,80}
        \b(?:confidential|privileged|intended\s+(?:solely|only))
      | the\s+information\s+(?:contained\s+)?in\s+this\s+(?:e-?mail|message|communication)
      | if\s+you\s+(?:are\s+not|have\s+received\s+this)\b.{0,60}\b(?:intended|in\s+error)
      | (?:diese|die\s+vorliegende)\s+(?:e-?mail|nachricht)\b.{0,80}\bvertraulich
      | vertraulichkeitshinweis | haftungsausschluss
      | (?:ce|le\s+présent)\s+(?:message|courriel|e-?mail)\b.{0,80}\bconfidentiel
      | (?:este|el\s+presente)\s+(?:mensaje|correo)\b.{0,80}\bconfidencial
      | (?:dit|deze)\s+(?:e-?mail|bericht)\b.{0,80}\bvertrouwelijk
      | questo\s+messaggio\b.{0,80}\briservat
      | le\s+informazioni\s+contenute\b.{0,80}\briservat
      | (?:dit|deze)\s+e-?mailbericht\b.{0,80}\bvertrouwelijk
      | (?:esta|a\s+presente)\s+(?:mensagem|comunicação)\b.{0,80}\bconfidencia
      | (?:detta|det\s+här)\s+(?:e-?post(?:meddelande)?|meddelande)\b.{0,80}\bkonfidentiell
      | (?:denne|dette)\s+(?:e-?mail|meddelelse|besked)\b.{0,80}\bfortrolig
      | (?:denne|dette)\s+(?:e-?post(?:en)?|meldingen?)\b.{0,80}\bkonfidensiell
      | tämä\s+(?:sähköposti(?:viesti)?|viesti)\b.{0,80}\bluottamuksellinen
      | (?:ta|niniejsza)\s+wiadomość\b.{0,80}\bpoufn
      | (?:tento|tato)\s+(?:e-?mail|zpráva)\b.{0,80}\bdůvěrn
      | (?:это|данное|настоящее)\s+(?:сообщение|письмо)\b.{0,80}конфиденциальн
      | (?:це|дане|цей)\s+(?:повідомлення|лист)\b.{0,80}конфіденційн
      | (?:この|本)(?:電子)?メール.{0,60}(?:機密|秘密)
      | 本(?:邮件|郵件).{0,60}(?:保密|机密|機密)
    )""",
    re.IGNORECASE | re.VERBOSE,
)

# Closings that end a message. Thanks-like closings must be the whole line
# ("Thanks, that works" is content); the others may carry a name after them
# ("Best regards, Jane Doe").
_THANKS = (
    "thanks", "thank you", "many thanks", "thanks again", "thanks a lot", "thx",
    "danke", "vielen dank", "danke schön", "merci", "merci beaucoup", "gracias",
    "muchas gracias", "grazie", "grazie mille", "bedankt", "dank je", "dank u", "obrigado",
    "obrigada", "tack", "tak", "takk", "dziękuję", "спасибо", "谢谢", "ありがとうございます",
)  # fmt: skip
_CLOSINGS = (
    "best regards", "kind regards", "warm regards", "warmest regards", "regards",
    "with best regards", "with kind regards", "best", "all the best", "best wishes",
    "cheers", "sincerely", "yours sincerely", "yours truly", "sincerely yours",
    "yours faithfully", "respectfully", "mit freundlichen grüßen", "mit freundlichen grüssen",
    "freundliche grüße", "freundliche grüsse", "beste grüße", "beste grüsse", "viele grüße",
    "viele grüsse", "liebe grüße", "herzliche grüße", "mfg", "lg", "gruß", "grüße",
    "cordialement", "bien cordialement", "bien à vous", "salutations", "meilleures salutations",
    "sincères salutations", "amicalement", "saludos", "un saludo", "saludos cordiales",
    "atentamente", "cordiali saluti", "distinti saluti", "saluti", "un saluto",
    "met vriendelijke groet", "met vriendelijke groeten", "vriendelijke groet", "groeten",
    "groet", "mvg", "atenciosamente", "cumprimentos", "abraços", "med vänliga hälsningar",
    "vänliga hälsningar", "hälsningar", "mvh", "med venlig hilsen", "venlig hilsen",
    "med vennlig hilsen", "vennlig hilsen", "hilsen", "pozdrawiam", "z poważaniem",
    "с уважением", "всего доброго", "敬具", "此致", "祝好", "よろしくお願いします",
    "よろしくお願いいたします",
    "s pozdravem", "s přátelským pozdravem", "se srdečným pozdravem", "srdečně",
    "з повагою", "з найкращими побажаннями", "всього найкращого", "ystävällisin terveisin",
    "terveisin", "parhain terveisin", "vg", "groetjes", "hartelijke groet",
    "beste groet", "beste groeten", "pzdr", "pozdrowienia", "serdecznie pozdrawiam",
    "顺祝商祺", "顺颂商祺", "祝商祺", "此致敬礼", "以上、よろしくお願いいたします", "以上",
    "abraço", "um abraço", "bàv", "un cordial saludo", "buona giornata",
    "beste hilsen", "ha det bra", "cdlt",
)  # fmt: skip
_CLOSING_LINE = re.compile(
    r"^\s*(?P<closing>"
    + "|".join(re.escape(c) for c in sorted(_CLOSINGS + _THANKS, key=len, reverse=True))
    + r")(?P<rest>\s*[.!;:]*(?:\s*[,\-–—]\s*[^\s,.;:!?]{1,30}(?:\s+[^\s,.;:!?]{1,30}){0,3})?"
    + r"\s*[.,!;:]*)\s*$",
    re.IGNORECASE,
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*•·–]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+\S", re.IGNORECASE)
# A sign-off block (name, title, firm, phone, address) is only a few lines.
_MAX_SIGNOFF_TAIL = 10
_MAX_SIGNOFF_LINE = 160
_MAX_FOOTER_TAIL = 3
# How many non-blank lines at the end of the answer may hold a sign-off.
_TAIL_WINDOW = 40


def is_signoff(line: str) -> bool:
    """A closing line ("Best regards,", "Mit freundlichen Grüßen"), maybe with a name."""
    return _is_signoff(line)


def _is_signoff(line: str) -> bool:
    if len(line) > MAX_MARKER_LINE:
        return False
    match = _CLOSING_LINE.match(line)
    if match is None:
        return False
    rest = match.group("rest").strip(" ,.!;:-–—")
    return not (match.group("closing").lower() in _THANKS and rest)


class _Kind(enum.Enum):
    BLANK = "blank"
    TEXT = "text"
    # Everything from a delimiter or a disclaimer on is set aside.
    CUT = "cut"
    MOBILE_FOOTER = "mobile_footer"
    SIGNOFF = "signoff"


def _kind(line: str) -> _Kind:
    if not line.strip():
        return _Kind.BLANK
    if len(line) > MAX_MARKER_LINE:
        return _Kind.TEXT
    if _DELIMITER.match(line) or _DISCLAIMER.match(line):
        return _Kind.CUT
    if _MOBILE_FOOTER.match(line.strip()):
        return _Kind.MOBILE_FOOTER
    if _is_signoff(line):
        return _Kind.SIGNOFF
    return _Kind.TEXT


def is_cut(line: str) -> bool:
    return len(line) <= MAX_MARKER_LINE and bool(_DELIMITER.match(line) or _DISCLAIMER.match(line))


def signature_start(lines: list[str]) -> int | None:
    """Index in ``lines`` (the lawyer's own lines) where the signature begins.

    Never 0: a message that is nothing but a sign-off keeps it as its text.
    A delimiter or disclaimer may sit anywhere; sign-offs and mobile footers
    are only looked for in the last lines before it, which is where they are
    (and keeps huge inputs cheap).
    """
    first_content = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first_content is None:
        return None
    end = next((i for i in range(first_content + 1, len(lines)) if is_cut(lines[i])), len(lines))
    tail_start = end
    seen = 0
    while tail_start > first_content + 1 and seen < _TAIL_WINDOW:
        tail_start -= 1
        seen += bool(lines[tail_start].strip())
    kinds = [_Kind.TEXT] * tail_start + [_kind(line) for line in lines[tail_start:end]]
    kinds += [_Kind.CUT] * (len(lines) - end)
    for index in range(tail_start, end):
        if _starts_signature(lines, kinds, index):
            return index
    return end if end < len(lines) else None


# A postscript after the sign-off ("PS: only the first shipment", "P.S.", "PD:", "NB",
# "追伸"): the lawyer wrote it after signing, and it is part of what they said.
_POSTSCRIPT = re.compile(
    r"^\s*(?:p\.?\s?p\.?\s?s|p\.?\s?s|p\.?\s?d|n\.?\s?b)\b\.?|^\s*(?:追伸|附言|又及)", re.I
)


def postscript_start(lines: list[str], start: int) -> int | None:
    """Index of a postscript among the signature's lines (from ``start``), before any
    delimiter or disclaimer; None if the signature has none."""
    for index in range(start, len(lines)):
        if is_cut(lines[index]):
            return None
        if _POSTSCRIPT.match(lines[index]):
            return index
    return None


def _starts_signature(lines: list[str], kinds: list[_Kind], index: int) -> bool:
    kind = kinds[index]
    if kind is _Kind.CUT:
        return True
    if kind is _Kind.MOBILE_FOOTER:
        # A footer ends the message; with much text after it, it is not a footer.
        return _block_after(lines, kinds, index, _MAX_FOOTER_TAIL) is not None
    if kind is _Kind.SIGNOFF:
        block = _block_after(lines, kinds, index, _MAX_SIGNOFF_TAIL)
        return (
            block is not None
            and all(len(later) <= _MAX_SIGNOFF_LINE for later in block)
            and not any(_LIST_ITEM.match(later) for later in block)
        )
    return False


def _block_after(lines: list[str], kinds: list[_Kind], index: int, limit: int) -> list[str] | None:
    """Non-blank lines after ``index`` up to the next boilerplate or the end.

    None when there are more than ``limit`` of them (then ``index`` is not the
    start of a closing block); the scan stops there, so this stays cheap.
    """
    block: list[str] = []
    for position in range(index + 1, len(lines)):
        kind = kinds[position]
        if kind is _Kind.BLANK:
            continue
        if kind in (_Kind.CUT, _Kind.MOBILE_FOOTER):
            break
        if len(block) == limit:
            return None
        block.append(lines[position])
    return block
