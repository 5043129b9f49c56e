"""Email bodies from jinja2 templates in templates/email/.

Templates are found from the setting-free default: the copy shipped inside
the wheel (gateway/_templates/email) or, in a checkout, the top-level
templates/email folder. StrictUndefined turns a missing variable into an
error instead of a silently empty line; HTML templates are autoescaped, so
text written by an agent can never become markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from jinja2 import TemplateError as JinjaTemplateError

from gateway.errors import GatewayError


class TemplateError(GatewayError):
    """A template is missing or failed to render."""


def templates_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "_templates" / "email", here.parent / "templates" / "email"):
        if candidate.is_dir():
            return candidate
    raise TemplateError("email templates not found (templates/email or gateway/_templates)")


def _label(category: str) -> str:
    return category.replace("_", " ").capitalize()


class Renderer:
    """Renders ``NAME.txt`` and ``NAME.html`` with the same variables."""

    def __init__(self, directory: Path | None = None) -> None:
        self.env = Environment(
            loader=FileSystemLoader(str(directory or templates_dir())),
            undefined=StrictUndefined,
            autoescape=select_autoescape(enabled_extensions=("html",), default=False),
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            # Each template is compiled once per process: no stat of its file per email.
            auto_reload=False,
        )
        self.env.filters["label"] = _label

    def render(self, name: str, **context: Any) -> tuple[str, str]:
        """(text, html) for the template pair NAME."""
        try:
            text = self.env.get_template(f"{name}.txt").render(**context)
            html = self.env.get_template(f"{name}.html").render(**context)
        except JinjaTemplateError as exc:
            raise TemplateError(f"template {name}: {exc}") from exc
        return text, html
