"""Find where the lawyer's own text ends: signatures, mobile footers, disclaimers.

Only whole lines are ever recognised (a sentence that merely contains
"regards" or "sent from" is content), and a sign-off block that contains a
list item is not a signature: "Approved, subject to:" followed by "- a" / "1. b"
keeps every condition.
"""

from __future__ import annotations

import re

from gateway.replies.patterns import MAX_MARKER_LINE

# RFC 3676 signature delimiter; many clients drop the trailing space.
_DELIMITER = re.compile(r"^--\s?$")

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


def _is_signoff(line: str) -> bool:
    if len(line) > MAX_MARKER_LINE:
        return False
    match = _CLOSING_LINE.match(line)
    if match is None:
        return False
    rest = match.group("rest").strip(" ,.!;:-–—")
    return not (match.group("closing").lower() in _THANKS and rest)


def signature_start(lines: list[str]) -> int | None:
    """Index in ``lines`` (the lawyer's own lines) where the signature begins.

    Never 0: a message that is nothing but a sign-off keeps it as its text.
    """
    content_seen = False
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        if content_seen and _starts_signature(lines, index):
            return index
        content_seen = True
    return None


def _starts_signature(lines: list[str], index: int) -> bool:
    line = lines[index]
    if len(line) > MAX_MARKER_LINE:
        return False
    if _DELIMITER.match(line) or _DISCLAIMER.match(line):
        return True
    tail = [later for later in lines[index + 1 :] if later.strip()]
    if _MOBILE_FOOTER.match(line.strip()):
        # A footer ends the message; with much text after it, it is not a footer.
        return len(_until_boilerplate(tail)) <= _MAX_FOOTER_TAIL
    if _is_signoff(line):
        block = _until_boilerplate(tail)
        return (
            len(block) <= _MAX_SIGNOFF_TAIL
            and all(len(later) <= _MAX_SIGNOFF_LINE for later in block)
            and not any(_LIST_ITEM.match(later) for later in block)
        )
    return False


def _until_boilerplate(tail: list[str]) -> list[str]:
    """The lines of ``tail`` before a delimiter, footer or disclaimer."""
    for index, line in enumerate(tail):
        if len(line) <= MAX_MARKER_LINE and (
            _DELIMITER.match(line) or _DISCLAIMER.match(line) or _MOBILE_FOOTER.match(line.strip())
        ):
            return tail[:index]
    return tail
