"""Email bodies from jinja2 templates in templates/email/.

Templates are found from the setting-free default: the copy shipped inside
the wheel (gateway/_templates/email) or, in a checkout, the top-level
templates/email folder. StrictUndefined turns a missing variable into an
error instead of a silently empty line; HTML templates are autoescaped, so
text written by an agent can never become markup.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import (
    BaseLoader,
    Environment,
    FileSystemLoader,
    StrictUndefined,
    nodes,
    pass_environment,
    select_autoescape,
)
from jinja2 import TemplateError as JinjaTemplateError
from jinja2.filters import do_wordwrap
from jinja2.visitor import NodeTransformer

from gateway import i18n
from gateway.errors import TemplateError
from gateway.i18n import N_


def templates_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "_templates" / "email", here.parent / "templates" / "email"):
        if candidate.is_dir():
            return candidate
    raise TemplateError("email templates not found (templates/email or gateway/_templates)")


# The words for the contract's categories, statuses and turn kinds, as a lawyer reads them.
_WORDS = {
    "legal_review": N_("Legal review"),
    "human_confirmation": N_("Human confirmation"),
    "physical_action": N_("Physical action"),
    "operator_escalation": N_("Operator escalation"),
    "recorded": N_("recorded"),
    "reviewed": N_("reviewed"),
    "answered": N_("answered"),
    "declined": N_("declined"),
    "closed": N_("closed"),
    "reply": N_("reply"),
    "approval": N_("approval"),
    "conditional_approval": N_("conditional approval"),
    "rejection": N_("rejection"),
    "question": N_("question"),
    "decline": N_("decline"),
    "close": N_("close"),
    "acknowledgement": N_("acknowledgement"),
    # A reading held for its correction window, and a reply that said nothing new.
    "pending_decision": N_("pending decision"),
    "no_answer": N_("no answer"),
}


def _label(word: str) -> str:
    """A category, status or turn kind in the lawyer's language (``Legal review``)."""
    key = str(word).replace(" ", "_")
    if key in _WORDS:
        return i18n.gettext(_WORDS[key])
    return str(word).replace("_", " ").capitalize()


def _word(word: str) -> str:
    """Like ``label``, in lower case where the language writes it so (a status)."""
    key = str(word).replace(" ", "_")
    return i18n.gettext(_WORDS[key]) if key in _WORDS else str(word).replace("_", " ")


# Characters that change how text around them reads: bidi embeddings, overrides and
# isolates (U+202A-U+202E, U+2066-U+2069), the other invisible direction marks, C0
# controls but tab and newline, DEL and C1 (ESC starts terminal escape sequences).
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]")


def shown(value: object) -> str:
    """Text an agent wrote, with every hidden control shown as a visible marker.

    "EVORPPA" between U+202E and U+202C then reads "[U+202E]EVORPPA[U+202C]",
    not "APPROVE", and an ANSI colour code reads "[U+001B][31m" in a terminal.
    Line breaks and tabs are kept; CR is shown, since CR alone can overwrite a line.
    """
    text = "" if value is None else str(value)
    text = text.replace("\r\n", "\n")
    return _HIDDEN.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def barred(value: object) -> str:
    """Agent text for a plain-text part: every line starts with "| ".

    Nothing the agent writes can then look like a line of the gateway's own,
    such as an end of the agent's block or a "HOW TO ANSWER" heading.
    """
    return "\n".join("| " + line for line in shown(value).rstrip("\n").split("\n"))


# Lines wrapped once per process: the quick-reply labels and the other fixed sentences
# every email repeats. Longer text (what an agent wrote) is wrapped each time.
_WRAP_CACHED_CHARS = 200


@lru_cache(maxsize=512)
def _wrapped(
    environment: Environment,
    text: str,
    width: int,
    break_long_words: bool,
    wrapstring: str | None,
    break_on_hyphens: bool,
) -> str:
    return do_wordwrap(environment, text, width, break_long_words, wrapstring, break_on_hyphens)


@pass_environment
def _wordwrap(
    environment: Environment,
    s: str,
    width: int = 79,
    break_long_words: bool = True,
    wrapstring: str | None = None,
    break_on_hyphens: bool = True,
) -> str:
    """jinja's ``wordwrap``, remembering the short lines it wrapped."""
    if type(s) is not str or len(s) > _WRAP_CACHED_CHARS:
        return do_wordwrap(environment, s, width, break_long_words, wrapstring, break_on_hyphens)
    return _wrapped(environment, s, width, break_long_words, wrapstring, break_on_hyphens)


def _translated(message: str, **variables: Any) -> str:
    """``message`` in the language being written, with ``%(name)s`` filled in."""
    text = i18n.gettext(message)
    return text % variables if variables else text


def _filled(sentence: str, **variables: Any) -> str:
    """A sentence translated when its template was compiled, its ``%(name)s`` filled in."""
    return sentence % variables


class _FixedSentences(NodeTransformer):
    """``_("...")`` calls of a template, translated once when the template is compiled.

    A sentence with no variables becomes a constant, which jinja then escapes and
    wraps at compile time (the ``wordwrap`` filter of a constant is folded too); one
    with variables keeps only the filling in for each email. Some fifty of an email's
    sixty-odd template calls are such sentences.
    """

    def visit_Call(self, call: nodes.Call) -> nodes.Node:
        node = self.generic_visit(call)
        if not (
            isinstance(node, nodes.Call)
            and isinstance(node.node, nodes.Name)
            and node.node.name == "_"
            and len(node.args) == 1
            and isinstance(node.args[0], nodes.Const)
            and isinstance(node.args[0].value, str)
            and node.dyn_args is None
            and node.dyn_kwargs is None
        ):
            return node
        sentence = i18n.gettext(node.args[0].value)
        if not node.kwargs:
            return nodes.Const(sentence, lineno=node.lineno)
        filler = nodes.Name("_filled", "load", lineno=node.lineno)
        return nodes.Call(
            filler, [nodes.Const(sentence)], node.kwargs, None, None, lineno=node.lineno
        )


class _InlinedIncludes(NodeTransformer):
    """``{% include "name" %}`` replaced, when the template is compiled, by what it includes.

    jinja runs an include when the email is rendered: it looks the template up and
    copies the whole context into a new one, for each of an email's half-dozen
    includes. Spliced in, the included nodes run in the includer's own context,
    which is what an include with context gives them. Only a plain include of a
    named template is spliced (one that may be missing, named by a variable, or
    without context, is left to jinja), and only one that binds no name the
    includer could see differently: no ``set``, ``import`` or macro of its own, and
    ``from ... import`` only of what the includer imports from there itself.
    """

    _BINDING = (
        nodes.Assign,
        nodes.AssignBlock,
        nodes.Import,
        nodes.Macro,
        nodes.Block,
        nodes.Extends,
    )

    def __init__(self, environment: _LanguageEnvironment, includer: nodes.Template) -> None:
        self.environment = environment
        self.imported = _imported(includer)

    def visit_Include(self, include: nodes.Include) -> nodes.Node | list[nodes.Node]:
        named = include.template
        if (
            isinstance(named, nodes.Const)
            and isinstance(named.value, str)
            and include.with_context
            and not include.ignore_missing
        ):
            body = self.environment.included_body(named.value)
            if self._spliceable(body):
                return body
        return include

    def _spliceable(self, body: list[nodes.Node]) -> bool:
        spliced = nodes.Template(body)
        if any(spliced.find_all(self._BINDING)):
            return False
        return all(_imported_from(i) <= self.imported for i in spliced.find_all(nodes.FromImport))


def _imported_from(node: nodes.FromImport) -> set[tuple[object, str]]:
    """(template, name bound) for each name a ``{% from ... import ... %}`` binds."""
    source = node.template.value if isinstance(node.template, nodes.Const) else node.template
    return {(source, n if isinstance(n, str) else n[1]) for n in node.names}


def _imported(template: nodes.Template) -> set[tuple[object, str]]:
    """What a template imports at its top level, with ``{% from ... import ... %}``."""
    found: set[tuple[object, str]] = set()
    for node in template.body:
        if isinstance(node, nodes.FromImport) and isinstance(node.template, nodes.Const):
            found |= _imported_from(node)
    return found


class _LanguageEnvironment(Environment):
    """The templates as one language reads them, each compiled in that language.

    Everything a template's compilation works out (its fixed sentences, the constants
    jinja folds) is then right for every email rendered from it. ``_parse`` and
    ``_generate`` are jinja's two compile steps.
    """

    def __init__(self, language: str, loader: BaseLoader) -> None:
        super().__init__(
            loader=loader,
            undefined=StrictUndefined,
            autoescape=select_autoescape(enabled_extensions=("html",), default=False),
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            # Each template is compiled once per process: no stat of its file per email.
            auto_reload=False,
            extensions=["jinja2.ext.i18n"],
        )
        self.language = language
        # {% trans %} blocks: translated at render time, in the language being spoken.
        self.install_gettext_callables(  # type: ignore[attr-defined]
            i18n.gettext, i18n.ngettext, newstyle=True
        )
        # {% trans %} blocks are message ids without their line breaks and indentation.
        self.policies["ext.i18n.trimmed"] = True
        # {{ _("...", name=value) }}: one plain call (the extension's goes through the
        # context twice per sentence). It returns text, which autoescape then escapes whole
        # in HTML; the {% trans %} blocks, whose ids hold markup, keep the extension's.
        self.globals["_"] = _translated
        self.globals["_filled"] = _filled
        self.filters["label"] = _label
        self.filters["word"] = _word
        self.filters["shown"] = shown
        self.filters["barred"] = barred
        self.filters["wordwrap"] = _wordwrap

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        template = super()._parse(source, name, filename)
        with i18n.speaking(self.language):
            folded = _FixedSentences().visit(template)
        assert isinstance(folded, nodes.Template)
        inlined = _InlinedIncludes(self, folded).visit(folded)
        assert isinstance(inlined, nodes.Template)
        inlined.set_environment(self)
        return inlined

    def included_body(self, name: str) -> list[nodes.Node]:
        """The nodes of template ``name``, parsed as :meth:`_parse` parses any template."""
        assert self.loader is not None
        source, filename, _uptodate = self.loader.get_source(self, name)
        return self._parse(source, name, filename).body

    def _generate(
        self,
        source: nodes.Template,
        name: str | None,
        filename: str | None,
        defer_init: bool = False,
    ) -> str:
        with i18n.speaking(self.language):
            return super()._generate(source, name, filename, defer_init)


class Renderer:
    """Renders ``NAME.txt`` and ``NAME.html`` with the same variables."""

    def __init__(self, directory: Path | None = None) -> None:
        self._loader = FileSystemLoader(str(directory or templates_dir()))
        # One environment per language, made when an email is first written in it.
        self._environments: dict[str, _LanguageEnvironment] = {}

    def environment(self, language: str) -> Environment:
        """The templates compiled for ``language``."""
        found = self._environments.get(language)
        if found is None:
            found = self._environments[language] = _LanguageEnvironment(language, self._loader)
        return found

    def render(self, name: str, **context: Any) -> tuple[str, str]:
        """(text, html) for the template pair NAME, in the language being spoken."""
        language = i18n.current()
        context.setdefault("lang", language)
        env = self.environment(language)
        try:
            text = env.get_template(f"{name}.txt").render(**context)
            html = env.get_template(f"{name}.html").render(**context)
        except JinjaTemplateError as exc:
            raise TemplateError(f"template {name}: {exc}") from exc
        return text, html
