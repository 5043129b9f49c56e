"""Line patterns that mark where quoted history starts in a reply.

Every pattern here is applied to ONE line (or two joined lines for wrapped
attributions) that is known to be short (see ``MAX_MARKER_LINE``), is anchored,
and uses only bounded repetition, so no input can make matching slow.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence

# Attribution lines and header lines are short; longer lines are content.
MAX_MARKER_LINE = 400
# An attribution (joined from up to three wrapped lines) is never longer.
MAX_ATTRIBUTION = 500

# "On <date>, <name> wrote:" and its translations, each with a keyword that
# must occur in the line before the (more expensive) pattern is tried. Each
# pattern is anchored on the verb at the END of the line (after an optional
# name or address), with a lead word where the language has one, so a sentence
# that merely contains "wrote" is never matched.
_ATTRIBUTIONS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (keyword, re.compile(r"^\s*(?:" + body + r")\s*[:：]\s*$", re.IGNORECASE))
    for keyword, body in (
        ("wrote", r"on\b.{1,300}\bwrote"),  # en
        ("wrote", r".{1,200}\bwrote\s+on\b.{4,120}"),  # en, Lotus Notes: NAME wrote on DATE
        ("schrieb", r"am\b.{1,300}\bschrieb\b[^:：]{0,200}"),  # de: Am ... schrieb X
        ("schrieb", r".{1,300}\bschrieb\s+am\b.{1,200}"),  # de: X schrieb am ...
        ("écrit", r"le\b.{1,300}\ba\s+écrit"),  # fr
        ("escribió", r"el\b.{1,300}\bescribió"),  # es
        ("scritto", r"il\b.{1,300}\bha\s+scritto"),  # it
        ("schreef", r"op\b.{1,300}\bschreef\b[^:：]{0,200}"),  # nl
        ("geschreven", r"op\b.{1,300}\bheeft\b[^:：]{1,200}\bgeschreven"),  # nl
        ("escreveu", r"em\b.{1,300}\bescreveu"),  # pt
        ("skrev", r".{1,300}\bskrev\b[^:：]{0,200}"),  # sv, da, no
        ("napisał", r".{1,300}\bnapisał(?:\(a\)|a)?"),  # pl
        ("napsal", r".{1,300}\bnapsal(?:\(a\)|a)?"),  # cs
        ("kirjoitti", r".{1,300}\bkirjoitti"),  # fi
        ("написал", r".{1,300}\bнаписал[аи]?"),  # ru
        ("пишет", r".{1,300}\bпишет"),  # ru
        ("пише", r".{1,300}\bпише"),  # uk, sr
        ("написа", r".{1,300}\bнаписа(?:в|ла)"),  # uk
        ("書きました", r".{1,300}書きました"),  # ja
        ("のメッセージ", r".{1,300}のメッセージ"),  # ja
        ("写道", r".{1,300}写道"),  # zh (simplified)
        ("寫道", r".{1,300}寫道"),  # zh (traditional)
    )
)
# "NAME <addr> wrote:" / "addr schrieb:" with no date, as Apple Mail and K-9 write it.
_ADDRESS_VERB = re.compile(
    r"^\s*(?:[^<>\n]{0,120}<[^<>\s@]{1,64}@[^<>\s]{1,255}>|[^<>\s@]{1,64}@[^<>\s]{1,255})\s*"
    r"(?:wrote|schrieb|a\s+écrit|escribió|ha\s+scritto|schreef|escreveu|skrev|napisał(?:\(a\)|a)?"
    r"|написал[аи]?|пишет|пише|написав|написала|kirjoitti|napsal(?:\(a\)|a)?)\s*[:：]\s*$",
    re.IGNORECASE,
)
# A full date, then (after a name) an address ending in a colon: the bare
# attribution of Yandex, mail.ru and some Outlook builds, strong enough to
# cut unquoted history below it.
_DATE_LEAD = re.compile(
    r"^\s*(?:[^\W\d_]{2,12}\.?,?\s+)?(?:\d{1,4}[./-]\s?\d{1,2}[./-]\s?\d{2,4}"
    r"|\d{1,2}\.?\s+[^\W\d_]{3,12}\.?\s+\d{4}|[^\W\d_]{3,12}\.?\s+\d{1,2},?\s+\d{4})\b"
)
_ANGLE_ADDRESS_END = re.compile(r"<[^<>\s@]{1,64}@[^<>\s]{1,255}>\s*[:：]$")
_MAILTO = re.compile(r"mailto:", re.IGNORECASE)
# Zoho: "---- On <date> <name> wrote ----".
_DASHED_ATTRIBUTION = re.compile(r"^\s*-{2,}\s*(.{10,400}?)\s*-{2,}\s*$")
# A date and an address ending in a colon: the bare attribution many webmails
# (mail.ru, Yandex, Gmail in ru/ja) put above the quote. Too weak on its own,
# so it only counts when a quote or the end of the text follows.
_BARE_DATE = re.compile(r"\d{1,4}[./\-: ]\d{1,2}")
_BARE_ADDRESS_END = re.compile(r"(?:@[^\s@<>:：]{1,100}>?|>)\s*[:：]$")
_HAS_DATE_OR_ADDRESS = re.compile(r"\d|@")

# "-----Original Message-----" and friends, including forwards: a label
# between two runs of dashes (or = _ *), checked against the known labels.
_DASHED_LABEL = re.compile(r"^\s*[-=_*]{2,}\s*([^-=_*\n]{3,60}?)\s*[-=_*]{2,}\s*$")
_ORIGINAL_MESSAGE_LABEL = re.compile(
    r"""(?:
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
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_FORWARD_INTRO = re.compile(
    r"^\s*(?:begin\s+forwarded\s+message|anfang\s+der\s+weitergeleiteten\s+nachricht"
    r"|début\s+du\s+message\s+réexpédié|inicio\s+del\s+mensaje\s+reenviado)\s*[:：]\s*$",
    re.IGNORECASE,
)
# Outlook draws a line of underscores above the quoted header block; other clients draw
# one of "=" or box-drawing rules.
_UNDERSCORE_SEPARATOR = re.compile(r"^\s*(?:_{20,}|={20,}|[─━═]{20,})\s*$")
# Lotus Notes: "----- Forwarded by NAME on DATE -----", "----- Weitergeleitet von NAME am DATE".
_LOTUS_FORWARDED = re.compile(
    r"^\s*-{2,}\s*(?:forwarded\s+by\s.{1,120}\son|weitergeleitet\s+von\s.{1,120}\sam"
    r"|transféré\s+par\s.{1,120}\sle|reenviado\s+por\s.{1,120}\sel)\s.{4,60}?-*\s*$",
    re.IGNORECASE,
)
# "- - - - - Original Message - - - - -": the dashes spaced out.
_SPACED_LABEL = re.compile(r"^\s*(?:[-=]\s){2,}\s*([^-=\n]{3,60}?)\s*(?:[-=]\s?){2,}\s*$")
# Help desks and ticket systems: "##- Please type your reply above this line -##".
_REPLY_ABOVE = re.compile(
    r"^\s*[#\-=_*]{0,4}\s*(?:please\s+)?(?:type|write|reply|respond)\s.{0,30}\babove\s+this\s+line"
    r"\s*[#\-=_*]{0,4}\s*$",
    re.IGNORECASE,
)


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
        "від", "відправник", "odesílatel",
    ),
    HeaderField.SENT: (
        "sent", "date", "gesendet", "datum", "envoyé", "enviado", "enviada", "fecha",
        "verzonden", "verstuurd", "inviato", "enviada em", "enviado em", "data", "skickat", "sendt", "wysłano",
        "wysłane", "отправлено", "дата", "送信日時", "日付", "发送时间", "日期", "寄件日期",
        "enviado el", "enviada el", "odesláno", "datum odeslání", "lähetetty", "päivämäärä",
        "надіслано", "відправлено", "dato", "sendt den", "päiväys",
    ),
    HeaderField.TO: (
        "to", "an", "à", "a", "para", "aan", "till", "til", "do", "кому", "宛先", "收件人",
        "komu", "vastaanottaja", "kenelle",
    ),
    HeaderField.CC: (
        "cc", "kopie", "copie à", "cc.", "копия", "抄送", "копія", "kopio", "dw", "kopia",
    ),
    HeaderField.SUBJECT: (
        "subject", "betreff", "objet", "asunto", "onderwerp", "oggetto", "assunto", "ämne",
        "emne", "temat", "тема", "件名", "主题", "主旨", "předmět", "aihe", "věc",
    ),
}  # fmt: skip
_LABEL_FIELD: dict[str, HeaderField] = {
    label: field for field, labels in _HEADER_LABELS.items() for label in labels
}
# A short label before a colon; looked up in ``_LABEL_FIELD`` afterwards,
# which is much cheaper than one regex alternation of every label.
_HEADER_LINE = re.compile(r"^\s*\*{0,2}([^\W\d_][^:：*\n]{0,15}?)\s?\*{0,2}\s?[:：]")
# How many lines a quoted header block may span (wrapped To: lists included).
_HEADER_WINDOW = 6


def is_original_message_separator(line: str) -> bool:
    """A line that starts forwarded or original history outright."""
    if len(line) > MAX_MARKER_LINE:
        return False
    stripped = line.strip()
    if _UNDERSCORE_SEPARATOR.match(line):
        return True
    if stripped[:1] not in ("-", "=", "_", "*", "#") and not stripped.endswith((":", "：")):
        return False
    if _LOTUS_FORWARDED.match(line) or _REPLY_ABOVE.match(line):
        return True
    spaced = _SPACED_LABEL.match(line)
    if spaced and _ORIGINAL_MESSAGE_LABEL.fullmatch(spaced.group(1).strip()):
        return True
    dashed = _DASHED_LABEL.match(line)
    if dashed and _ORIGINAL_MESSAGE_LABEL.fullmatch(dashed.group(1).strip()):
        return True
    zoho = _DASHED_ATTRIBUTION.match(line)
    if zoho and attribution_strength(zoho.group(1) + ":") == 2:
        return True
    return bool(_FORWARD_INTRO.match(line) or _UNDERSCORE_SEPARATOR.match(line))


def header_field(line: str) -> HeaderField | None:
    """Which quoted-header field a line starts with, if any."""
    head = line[:40]
    if len(line) > MAX_MARKER_LINE or (":" not in head and "：" not in head):
        return None
    match = _HEADER_LINE.match(line)
    if match is None:
        return None
    return _LABEL_FIELD.get(" ".join(match.group(1).lower().split()))


def starts_header_block(fields: Sequence[HeaderField | None], index: int) -> bool:
    """The line at ``index`` opens a quoted "From:/Sent:/To:" block.

    ``fields`` holds :func:`header_field` of every line (blank lines: None is
    fine, they end the block anyway through ``lines``). The block needs a From
    field and at least one other field within a few lines, so a lone
    "To: the partners" or "A: yes" in the answer is content.
    """
    if fields[index] is None:
        return False
    window = [field for field in fields[index : index + _HEADER_WINDOW] if field is not None]
    return HeaderField.FROM in window and any(field is not HeaderField.FROM for field in window)


def attribution_strength(text: str) -> int:
    """2 for a clear "On ... wrote:" line, 1 for a bare date-and-address line, else 0."""
    if len(text) > MAX_ATTRIBUTION:
        return 0
    # "<addr<mailto:addr>>" (Outlook's plain text) hides the address from the patterns.
    stripped = _MAILTO.sub("", text.strip())
    if not stripped.endswith((":", "：")):
        return 0
    # Every real attribution carries a date or an address; "As you wrote:" does not.
    if not _HAS_DATE_OR_ADDRESS.search(stripped):
        return 0
    folded = stripped.casefold()
    for keyword, pattern in _ATTRIBUTIONS:
        if keyword in folded and pattern.match(stripped):
            return 2
    if _ADDRESS_VERB.match(stripped):
        return 2
    if _ANGLE_ADDRESS_END.search(stripped[-330:]) and _DATE_LEAD.match(stripped):
        return 2
    if _BARE_ADDRESS_END.search(stripped[-110:]) and _BARE_DATE.search(stripped):
        return 1
    return 0


def attribution_without_colon(text: str) -> bool:
    """An attribution whose colon is missing ("On ... wrote", "DATE NAME <addr>").

    Only ever trusted right above a quote (the caller checks).
    """
    stripped = text.strip()
    if len(stripped) > MAX_ATTRIBUTION or stripped.endswith((":", "：")):
        return False
    if stripped.endswith(">") and _BARE_DATE.search(stripped) and "@" in stripped:
        return True
    return attribution_strength(stripped + ":") == 2
