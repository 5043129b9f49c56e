"""Line patterns that mark where quoted history starts in a reply.

Every pattern here is applied to ONE line (or two joined lines for wrapped
attributions) that is known to be short (see ``MAX_MARKER_LINE``), is anchored,
and uses only bounded repetition, so no input can make matching slow.
"""

from __future__ import annotations

import enum
import re

# Attribution lines and header lines are short; longer lines are content.
MAX_MARKER_LINE = 400

# "On <date>, <name> wrote:" and its translations. Each alternative is anchored
# on the verb at the END of the line (after an optional "<email>" or name),
# with a lead word where the language has one, so a sentence that merely
# contains "wrote" is never matched.
_ATTRIBUTION = re.compile(
    r"""^\s*(?:
        on\b.{1,300}\bwrote                                 # en
      | am\b.{1,300}\bschrieb\b.{0,200}                     # de: Am ... schrieb X
      | .{1,300}\bschrieb\s+am\b.{1,200}                    # de: X schrieb am ...
      | le\b.{1,300}\ba\s+écrit\s*                          # fr
      | el\b.{1,300}\bescribió                              # es
      | il\b.{1,300}\bha\s+scritto                          # it
      | op\b.{1,300}\b(?:schreef\b.{0,200}|heeft\b.{1,200}\bgeschreven)  # nl
      | em\b.{1,300}\bescreveu                              # pt
      | (?:den\b)?.{1,300}\bskrev\b.{0,200}                 # sv/da/no
      | (?:w\s+dniu\b)?.{1,300}\bnapisał(?:\(a\)|a)?        # pl
      | .{1,300}\b(?:написал[аи]?|пишет)                    # ru
      | .{1,300}(?:書きました|のメッセージ)                 # ja
      | .{1,300}(?:写道|寫道)                               # zh
    )\s*[:：]\s*$""",
    re.IGNORECASE | re.VERBOSE,
)
# A date and an address ending in a colon: the bare attribution many webmails
# (mail.ru, Yandex, Gmail in ru/ja) put above the quote. Too weak on its own,
# so it only counts when a quote or the end of the text follows.
_BARE_ATTRIBUTION = re.compile(
    r"^\s*[^:]{0,120}\d{1,4}[./\-: ]\d{1,2}.{0,200}(?:@[^\s@<>]{1,100}>?|>)\s*[:：]\s*$"
)
_HAS_DATE_OR_ADDRESS = re.compile(r"\d|@")

# "-----Original Message-----" and friends, including forwards.
_ORIGINAL_MESSAGE = re.compile(
    r"""^\s*[-=_*]{2,}\s*(?:
        original\s+message | forwarded\s+message | ursprüngliche\s+nachricht
      | weitergeleitete\s+nachricht | originalnachricht | message\s+d['’]origine
      | message\s+transféré | mensaje\s+original | mensaje\s+reenviado
      | messaggio\s+originale | messaggio\s+inoltrato | oorspronkelijk\s+bericht
      | origineel\s+bericht | doorgestuurd\s+bericht | mensagem\s+original
      | mensagem\s+encaminhada | ursprungligt\s+meddelande | vidarebefordrat\s+meddelande
      | oprindelig\s+meddelelse | original\s+meddelelse | videresendt\s+meddelelse
      | opprinnelig\s+melding | videresendt\s+melding | wiadomość\s+oryginalna
      | oryginalna\s+wiadomość | przekazana\s+wiadomość | исходное\s+сообщение
      | пересылаемое\s+сообщение | původní\s+zpráva | 原始邮件 | 原始郵件
      | 元のメッセージ | 転送されたメッセージ
    )\s*[-=_*]{2,}\s*$""",
    re.IGNORECASE | re.VERBOSE,
)
_FORWARD_INTRO = re.compile(
    r"^\s*(?:begin\s+forwarded\s+message|anfang\s+der\s+weitergeleiteten\s+nachricht"
    r"|début\s+du\s+message\s+réexpédié|inicio\s+del\s+mensaje\s+reenviado)\s*[:：]\s*$",
    re.IGNORECASE,
)
# Outlook draws a line of underscores above the quoted header block.
_UNDERSCORE_SEPARATOR = re.compile(r"^\s*_{20,}\s*$")


class HeaderField(enum.Enum):
    FROM = "from"
    SENT = "sent"
    TO = "to"
    CC = "cc"
    SUBJECT = "subject"


# Header labels of a quoted message as Outlook and webmails print them, by field.
_HEADER_LABELS: dict[HeaderField, tuple[str, ...]] = {
    HeaderField.FROM: (
        "from", "von", "de", "van", "da", "från", "fra", "od", "от", "発信者", "差出人",
        "发件人", "寄件者", "afzender", "remetente", "mittente", "expéditeur", "lähettäjä",
    ),
    HeaderField.SENT: (
        "sent", "date", "gesendet", "datum", "envoyé", "enviado", "enviada", "fecha",
        "verzonden", "verstuurd", "inviato", "data", "skickat", "sendt", "wysłano",
        "wysłane", "отправлено", "дата", "送信日時", "日付", "发送时间", "日期", "寄件日期",
    ),
    HeaderField.TO: (
        "to", "an", "à", "a", "para", "aan", "till", "til", "do", "кому", "宛先", "收件人",
    ),
    HeaderField.CC: ("cc", "kopie", "copie à", "cc.", "копия", "抄送"),
    HeaderField.SUBJECT: (
        "subject", "betreff", "objet", "asunto", "onderwerp", "oggetto", "assunto", "ämne",
        "emne", "temat", "тема", "件名", "主题", "主旨",
    ),
}  # fmt: skip
_LABEL_FIELD: dict[str, HeaderField] = {
    label: field for field, labels in _HEADER_LABELS.items() for label in labels
}
_HEADER_LINE = re.compile(
    r"^\s*\*{0,2}("
    + "|".join(sorted((re.escape(label) for label in _LABEL_FIELD), key=len, reverse=True))
    + r")\s?\*{0,2}\s?[:：]",
    re.IGNORECASE,
)
# How many lines a quoted header block may span (wrapped To: lists included).
_HEADER_WINDOW = 6


def is_original_message_separator(line: str) -> bool:
    """A line that starts forwarded or original history outright."""
    if len(line) > MAX_MARKER_LINE:
        return False
    return bool(
        _ORIGINAL_MESSAGE.match(line)
        or _FORWARD_INTRO.match(line)
        or _UNDERSCORE_SEPARATOR.match(line)
    )


def header_field(line: str) -> HeaderField | None:
    """Which quoted-header field a line starts with, if any."""
    if len(line) > MAX_MARKER_LINE:
        return None
    match = _HEADER_LINE.match(line)
    if match is None:
        return None
    return _LABEL_FIELD.get(match.group(1).lower())


def starts_header_block(lines: list[str], index: int) -> bool:
    """``lines[index]`` opens a quoted "From:/Sent:/To:/Subject:" block.

    The block needs a From field and at least one other field within a few
    lines, so a lone "To: the partners" or "A: yes" in the answer is content.
    """
    first = header_field(lines[index])
    if first is None:
        return False
    fields = {first}
    for line in lines[index + 1 : index + _HEADER_WINDOW]:
        if not line.strip():
            break
        field = header_field(line)
        if field is not None:
            fields.add(field)
    return HeaderField.FROM in fields and len(fields) >= 2


def attribution_strength(text: str) -> int:
    """2 for a clear "On ... wrote:" line, 1 for a bare date-and-address line, else 0."""
    if len(text) > MAX_MARKER_LINE * 2:
        return 0
    stripped = text.strip()
    if not stripped.endswith((":", "：")):
        return 0
    # Every real attribution carries a date or an address; "As you wrote:" does not.
    if not _HAS_DATE_OR_ADDRESS.search(stripped):
        return 0
    if _ATTRIBUTION.match(stripped):
        return 2
    if _BARE_ATTRIBUTION.match(stripped):
        return 1
    return 0
