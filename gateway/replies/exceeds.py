"""A limit the proposed action already exceeds: "only up to EUR 40,000" on a payment of
EUR 48,500.

The approval stands with its condition (the lawyer set a cap, the agent may act within
it), but the two cannot both be done as asked: the agent cannot pay 48,500 within 40,000.
The reading says so, and the receipt and the agent are told, so neither reads the
approval as leave to do what was asked.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from gateway.replies.kinds import Ask
from gateway.replies.phrases import find, merged_index
from gateway.replies.words import words

_CURRENCY = (
    r"EUR|USD|GBP|CHF|SEK|DKK|NOK|PLN|CZK|RUB|UAH|JPY|CNY|€|\$|£|¥|zł|Kč|руб\.?|грн\.?|円|元"
)
_AMOUNT = re.compile(
    rf"(?:(?P<before>{_CURRENCY})\s?)?(?P<number>\d[\d.,'’\u00a0\u202f ]*\d|\d)"
    rf"(?:\s?(?P<after>{_CURRENCY}))?",
    re.IGNORECASE,
)
_SAME = {"€": "EUR", "$": "USD", "£": "GBP", "¥": "JPY", "円": "JPY", "元": "CNY", "zł": "PLN"}
_SAME |= {"kč": "CZK", "руб": "RUB", "руб.": "RUB", "грн": "UAH", "грн.": "UAH"}


def exceeded(conditions: tuple[str, ...], ask: Ask) -> str | None:
    """What the proposed action asks that a limit among ``conditions`` does not allow,
    in words for the receipt and the agent, or None."""
    asked = _amounts(f"{ask.request} {ask.proposed_action or ''}")
    if not asked:
        return None
    for condition in conditions:
        if find(words(condition), merged_index("limits")) is None:
            continue
        for currency, limit, limit_text in _amounts(condition):
            for asked_currency, amount, amount_text in asked:
                if currency == asked_currency and amount > limit:
                    return (
                        f"the proposed action ({amount_text}) is above the limit "
                        f"{limit_text} set in the condition"
                    )
    return None


def _amounts(text: str) -> list[tuple[str, Decimal, str]]:
    found: list[tuple[str, Decimal, str]] = []
    for match in _AMOUNT.finditer(text[:4000]):
        currency = match.group("before") or match.group("after")
        value = _value(match.group("number"))
        if currency and value is not None:
            code = _SAME.get(currency.casefold(), _SAME.get(currency, currency.upper()))
            found.append((code, value, match.group(0).strip()))
    return found


def _value(number: str) -> Decimal | None:
    """``48,500.00``, ``48.500,00``, ``40 000`` and ``40'000`` as numbers."""
    digits = re.sub(r"[\s'’\u00a0\u202f]", "", number)
    if "," in digits and "." in digits:
        decimal = "," if digits.rfind(",") > digits.rfind(".") else "."
        thousands = "." if decimal == "," else ","
        digits = digits.replace(thousands, "").replace(decimal, ".")
    elif digits.count(",") == 1 and len(digits.split(",")[1]) != 3:
        digits = digits.replace(",", ".")  # a decimal comma: "40,5"
    elif digits.count(".") == 1 and len(digits.split(".")[1]) != 3:
        pass  # a decimal point: "40.5"
    else:
        digits = digits.replace(",", "").replace(".", "")
    try:
        return Decimal(digits)
    except InvalidOperation:
        return None
