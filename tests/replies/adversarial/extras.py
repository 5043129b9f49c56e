"""Asks and quick-reply forms that read the same in every language."""

from __future__ import annotations

from gateway.replies import Ask
from tests.replies.adversarial.trial import (
    APPROVAL,
    CONDITIONAL,
    DECLINE,
    DPA,
    HOLD,
    NDA,
    NONE,
    PAY,
    REJECTION,
    SEND,
    Trial,
    quick,
)


def _asked(language: str, text: str, ask: Ask, expect: tuple[str | None, ...]) -> Trial:
    return Trial("yes_no_ask", language, text, expect, ask=ask)


# 4. A bare yes/no answers the ask; it decides only where the ask is whether to act.
YES_NO_ASK = [
    _asked("en", "Yes.", HOLD, NONE),
    _asked("en", "No.", HOLD, NONE),
    _asked("en", "Yes", HOLD, NONE),
    _asked("de", "Ja.", HOLD, NONE),
    _asked("fr", "Oui.", HOLD, NONE),
    _asked("es", "Sí.", HOLD, NONE),
    _asked("ja", "はい。", HOLD, NONE),
    _asked("zh", "是的。", HOLD, NONE),
    _asked("pl", "Tak.", HOLD, NONE),
    _asked("pt", "Sim.", HOLD, NONE),
    _asked("it", "Sì.", HOLD, NONE),
    _asked("nl", "Nee.", HOLD, NONE),
    _asked("en", "Yes.", PAY, NONE),
    _asked("en", "Yes.", DPA, NONE),
    _asked("en", "No.", DPA, NONE),
    _asked(
        "en",
        "Yes.",
        Ask(
            "Should I sign the engagement letter or wait for the revised fee schedule?",
            "Sign the engagement letter.",
        ),
        NONE,
    ),
    _asked(
        "en",
        "Yes.",
        Ask("Shall I wait with the filing until Monday?", "File the trademark application today."),
        NONE,
    ),
    _asked(
        "en",
        "Yes.",
        Ask("Do you want me to cancel the transfer?", "Transfer EUR 10,000 to Acme Ltd."),
        NONE,
    ),
    _asked(
        "en",
        "Yes.",
        Ask("Can I pay the invoice, or should I dispute it first?", "Pay invoice 443 in full."),
        NONE,
    ),
    _asked("en", "Yes.", Ask("Should I not sign this yet?", "Sign the NDA."), NONE),
    _asked("en", "Yes.", NDA, APPROVAL),
    _asked("en", "No.", NDA, REJECTION),
    _asked("de", "Ja.", NDA, APPROVAL),
    _asked("de", "Nein.", NDA, REJECTION),
    _asked("fr", "Oui.", NDA, APPROVAL),
    _asked("en", "Yes.", SEND, APPROVAL),
    _asked("en", "Yes, please.", SEND, APPROVAL),
]


_APPROVE = "APPROVE\n\nNotes (optional):\n"
_WITH = "APPROVE WITH CONDITIONS\n\nConditions (one per line, each starting with -):\n"

# 5. What is typed under a quick-reply prompt is part of the answer.
QUICK_NOTES = [
    quick("en", "APPROVE", _APPROVE + "only if the amount stays under EUR 50,000.\n", CONDITIONAL),
    quick(
        "en",
        "APPROVE",
        "APPROVE\n\nNotes (optional): NOT the full amount - pay only EUR 49,600 for the 8 "
        "pallets received.\n",
        NONE,
    ),
    quick("en", "APPROVE", _APPROVE, APPROVAL),
    quick("en", "APPROVE WITH CONDITIONS", _WITH + "- \n- \n", NONE),
    quick(
        "en",
        "APPROVE WITH CONDITIONS",
        _WITH + "- pay only after the goods receipt is complete\n- send me the remittance advice\n",
        CONDITIONAL,
    ),
    quick("de", "APPROVE", _APPROVE + "max. EUR 50.000\n", CONDITIONAL),
    quick("en", "APPROVE", _APPROVE + "Do not pay without a call-back first.\n", NONE),
    quick("en", "APPROVE", _APPROVE + "Wait - I meant REJECT.\n", NONE),
    quick("fr", "APPROVE", _APPROVE + "seulement jusqu'à 50 000 EUR\n", CONDITIONAL),
    quick("en", "APPROVE", _APPROVE + "Thanks!\n", APPROVAL),
    quick(
        "en",
        "REJECT",
        "REJECT\n\nReasons, or what to do instead:\nPay only EUR 49,600 instead.\n",
        REJECTION,
    ),
    quick("en", "APPROVE", _APPROVE + "Is this the final invoice?\n", NONE),
    quick("en", "APPROVE", _APPROVE + "up to 50k only\n", CONDITIONAL),
    quick(
        "de", "APPROVE", _APPROVE + "nur für Namen und dienstliche E-Mail-Adressen\n", CONDITIONAL
    ),
    quick("es", "APPROVE", _APPROVE + "solo hasta 50.000 EUR\n", CONDITIONAL),
    quick("en", "APPROVE", _APPROVE + "but don't pay yet\n", NONE),
    quick(
        "en",
        "APPROVE WITH CONDITIONS",
        _WITH + "- liability shall not exceed EUR 1M\n- Swiss law applies\n",
        CONDITIONAL,
    ),
    quick("en", "APPROVE WITH CONDITIONS", _WITH + "- let me check with Anna first\n", NONE),
    quick("en", "DECLINE", "DECLINE\n\nWhy (optional):\nI am conflicted.\n", DECLINE),
    quick(
        "en",
        "APPROVE",
        "APPROVE\n\nNotes (optional): only if the amount stays under EUR 50,000.\n",
        CONDITIONAL,
    ),
    quick("de", "APPROVE", _APPROVE + "Nicht den vollen Betrag, nur EUR 49.600.\n", NONE),
    quick("en", "APPROVE", "", APPROVAL),
    quick("en", "APPROVE WITH CONDITIONS", "", NONE),
]
