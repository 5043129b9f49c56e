"""Turn an HTML reply into lines of text, keeping what the mail client told us.

Mail clients mark where the quoted history starts (Gmail ``gmail_quote``,
Outlook ``divRplyFwdMsg``, Thunderbird ``moz-cite-prefix``...). Those markers
are far more reliable than any text heuristic, so the converter records them
while it renders: every rendered line says whether it sits inside a
``<blockquote>`` (quoted, like a ``>`` line in plain text), and the index of
the first line at or after a "history starts here" marker is the hard cut.

Only the stdlib ``html.parser`` is used: it never raises on malformed markup,
which is what real mail is.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from html.parser import HTMLParser

# Elements whose boundaries end a line of text.
_BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "center", "dd", "div", "dl",
        "dt", "fieldset", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
        "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "tbody",
        "td", "tfoot", "th", "thead", "tr", "ul",
    }
)  # fmt: skip
# Elements whose content is never part of what the lawyer wrote.
_HIDDEN_TAGS = frozenset({"head", "script", "style", "title", "template", "xml"})
# Elements that never have an end tag, so they are never pushed on the stack.
_VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
# Outlook draws its reply separator as a div with a thin top border in one of
# these colours (Outlook 2007-2016 and Windows Mail respectively).
_SEPARATOR_BORDER = re.compile(
    r"border-top\s*:\s*solid\s+#(?:e1e1e1|b5c4df)"
    r"|border-top-color\s*:\s*rgb\(\s*229\s*,\s*229\s*,\s*229\s*\)"
)
_CUT_CLASSES = ("gmail_quote", "gmail_attr", "moz-cite-prefix", "yahoo_quoted")
_CUT_IDS = ("divrplyfwdmsg", "olk_src_body_section", "appendonsend", "yahoo_quoted")
# Zimbra (``zwchr``) and Hotmail (``stopSpelling``) put the history after an <hr>.
_CUT_HR_IDS = ("zwchr", "stopspelling")
_SIGNATURE_CLASSES = ("gmail_signature", "moz-signature")
_WHITESPACE = re.compile(r"[ \t\r\n\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_INVISIBLE = re.compile(r"[\u200b-\u200f\u2028\u2029\u2060\ufeff]")
# Deeply nested markup is not worth tracking and would make end-tag matching
# quadratic; past these bounds elements are rendered but not tracked.
_MAX_STACK = 1000
_MAX_END_TAG_SEARCH = 100
# html.parser rescans an unterminated "<" to the end of the input, which is
# quadratic on garbage: a "<" that does not open a tag closed before the next
# "<" is turned into text before parsing.
_STRAY_LT = re.compile(r"<(?![A-Za-z/!?][^<>]*>)")
# The parser costs a few microseconds per tag; past this budget the rest of
# the markup is only stripped of tags (and counts as unread history).
_PARSE_BUDGET_SECONDS = 0.5
_CHUNK = 32_768
_ANY_TAG = re.compile(r"<[^<>]*>")
_BLOCK_TAG = re.compile(r"<(?:br|p|div|tr|li|blockquote|h[1-6])\b[^<>]*>", re.IGNORECASE)


@dataclass(frozen=True)
class HtmlLines:
    """Rendered lines, which of them are quoted, and where the history starts."""

    lines: list[str]
    quoted: list[bool]
    # Index of the first line at or after a client's "history starts here"
    # marker; ``len(lines)`` when there is none.
    cut: int
    # Lines the client marked as its signature block.
    signature: list[bool]
    # True when the markup was too costly to read whole: the lines from
    # ``cut`` on were only stripped of tags, so nothing after it is trusted.
    truncated: bool = False


@dataclass
class _Open:
    tag: str
    quote: bool
    hidden: bool
    signature: bool
    ordered: bool = False
    counter: int = 0
    # Outlook's ``<p class="MsoNormal">``: one typed line (its style has no margin).
    line: bool = False


class _Renderer(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.quoted: list[bool] = []
        self.signature: list[bool] = []
        self.cut: int | None = None
        self._current: list[str] = []
        self._stack: list[_Open] = []
        self._quote_depth = 0
        self._hidden_depth = 0
        self._signature_depth = 0
        self._pre_depth = 0

    # -- line assembly ------------------------------------------------------
    def _break(self, blank: bool = False) -> None:
        """End the current line; ``blank`` also ends an empty one (a ``<br>``).

        Other block boundaries only end a line that has text, so nested
        ``<div>``s and list items do not turn into runs of blank lines.
        """
        text = "".join(self._current).strip()
        self._current = []
        if text or (blank and self.lines):
            self.lines.append(text)
            self.quoted.append(self._quote_depth > 0)
            self.signature.append(self._signature_depth > 0)

    def _mark_cut(self) -> None:
        if self.cut is None:
            self._break()
            self.cut = len(self.lines)

    # -- parser callbacks -----------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: (value or "") for name, value in attrs}
        classes = values.get("class", "").lower().split()
        element_id = values.get("id", "").lower()
        if self._starts_history(tag, values, classes, element_id):
            self._mark_cut()
        # Outlook writes each typed line as a paragraph with no margin, and an empty
        # line as one holding only &nbsp;: read as lines, they keep the lawyer's
        # paragraphs ("Approved" over "but don't sign yet" is one paragraph).
        line = tag == "p" and "msonormal" in classes
        if tag in _BLOCK_TAGS:
            # <br> ends a line even when empty; a paragraph starts after a blank line.
            paragraph = tag == "p" and not line and bool(self.lines and self.lines[-1])
            self._break(blank=tag == "br" or paragraph)
        if tag == "li":
            self._current.append(self._list_bullet())
        if tag in _VOID_TAGS:
            return
        entry = _Open(
            tag=tag,
            quote=tag == "blockquote",
            hidden=tag in _HIDDEN_TAGS,
            signature=any(c.startswith(_SIGNATURE_CLASSES) for c in classes)
            or values.get("data-signatureblock", "").lower() == "true",
            ordered=tag == "ol",
            line=line,
        )
        if len(self._stack) >= _MAX_STACK:
            return
        self._stack.append(entry)
        self._quote_depth += entry.quote
        self._hidden_depth += entry.hidden
        self._signature_depth += entry.signature
        self._pre_depth += tag == "pre"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # ``<br/>`` and friends: render as a start tag that closes at once.
        self.handle_starttag(tag, attrs)
        if tag not in _VOID_TAGS:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        # Close back to the nearest open element of this name; stray end tags
        # (very common in mail HTML) are ignored.
        lowest = max(0, len(self._stack) - _MAX_END_TAG_SEARCH)
        for index in range(len(self._stack) - 1, lowest - 1, -1):
            if self._stack[index].tag == tag:
                if tag in _BLOCK_TAGS:
                    empty = not "".join(self._current).strip()
                    self._break(blank=self._stack[index].line and empty)
                for entry in self._stack[index:]:
                    self._quote_depth -= entry.quote
                    self._hidden_depth -= entry.hidden
                    self._signature_depth -= entry.signature
                    self._pre_depth -= entry.tag == "pre"
                del self._stack[index:]
                return
        if tag in _BLOCK_TAGS:
            self._break()

    def handle_data(self, data: str) -> None:
        if self._hidden_depth:
            return
        data = _INVISIBLE.sub("", data)
        if self._pre_depth:
            pieces = data.replace("\r", "").split("\n")
            for number, piece in enumerate(pieces):
                if number:
                    self._break()
                self._current.append(piece)
            return
        text = _WHITESPACE.sub(" ", data)
        if not self._current and text.startswith(" "):
            text = text[1:]
        self._current.append(text)

    # -- helpers -------------------------------------------------------------
    def _list_bullet(self) -> str:
        for entry in reversed(self._stack):
            if entry.tag in ("ol", "ul"):
                if entry.ordered:
                    entry.counter += 1
                    return f"{entry.counter}. "
                return "- "
        return "- "

    @staticmethod
    def _starts_history(
        tag: str, values: dict[str, str], classes: list[str], element_id: str
    ) -> bool:
        if any(c.startswith(_CUT_CLASSES) for c in classes):
            return True
        if element_id.startswith(_CUT_IDS):
            return True
        if tag == "hr" and element_id in _CUT_HR_IDS:
            return True
        style = values.get("style", "").lower()
        return tag == "div" and bool(_SEPARATOR_BORDER.search(style))

    def finish(self, rest: str = "") -> HtmlLines:
        self.close()
        self._break()
        truncated = bool(rest)
        if truncated:
            self._mark_cut()
            for line in _strip_tags(rest):
                self.lines.append(line)
                self.quoted.append(False)
                self.signature.append(False)
        while self.lines and not self.lines[-1]:
            self.lines.pop()
            self.quoted.pop()
            self.signature.pop()
        cut = len(self.lines) if self.cut is None else min(self.cut, len(self.lines))
        return HtmlLines(self.lines, self.quoted, cut, self.signature, truncated)


def render_html(html: str) -> HtmlLines:
    """Render ``html`` to lines; see :class:`HtmlLines`."""
    html = _STRAY_LT.sub("&lt;", html)
    renderer = _Renderer()
    deadline = time.monotonic() + _PARSE_BUDGET_SECONDS
    for start in range(0, len(html), _CHUNK):
        renderer.feed(html[start : start + _CHUNK])
        if time.monotonic() > deadline and start + _CHUNK < len(html):
            return renderer.finish(html[start + _CHUNK :])
    return renderer.finish()


def _strip_tags(markup: str) -> list[str]:
    """A cheap rendering: block tags become line breaks, other tags vanish."""
    text = _ANY_TAG.sub(" ", _BLOCK_TAG.sub("\n", markup))
    text = text.replace("&nbsp;", " ").replace("&lt;", "<").replace("&gt;", ">")
    return [_WHITESPACE.sub(" ", line).strip() for line in text.split("\n")]
