"""The request categories, and the ``CATEGORY=WHAT; *=WHAT`` form settings write per category."""

from __future__ import annotations

from gateway.errors import ConfigError

CATEGORIES = ("legal_review", "human_confirmation", "physical_action", "operator_escalation")


def by_category(
    value: str, setting: str, what: str, categories: tuple[str, ...] = CATEGORIES
) -> list[tuple[str, str]]:
    """``CATEGORY=WHAT; *=WHAT`` -> [(category or '*', its text)], in the order written.

    HFA_LAWYERS and HFA_POLICIES are written this way; a part with no ``=`` or an
    unknown category is refused naming the setting and the categories it takes.
    """
    out: list[tuple[str, str]] = []
    for part in (p.strip() for p in value.split(";")):
        if not part:
            continue
        key, sep, text = part.partition("=")
        key = key.strip()
        if not sep or (key != "*" and key not in categories):
            raise ConfigError(
                f"{setting}: expected CATEGORY={what};... with CATEGORY one of "
                f"{', '.join(categories)} or *, got {part!r}"
            )
        out.append((key, text))
    return out
