"""A trial of the decision reader, the asks it answers, and how one language's trials are built.

``expect`` lists the readings that are right: ``None`` is no decision,
``"conditional"`` an approval with conditions. Each language module holds the
replies its lawyers write, family by family (see ``Language``); the bare yes/no
answers and the quick-reply notes are set against the asks here, so that every
language meets the same asks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gateway.replies import Ask

# The asks of the trial: whether to carry out the action ("May I sign ..." / "Sign ..."),
# and asks whose yes/no does not say whether to carry out the proposed action.
NDA = Ask(
    "May I sign the mutual NDA with Helix Bio AG as sent? It is their template; "
    "governing law Swiss, term 3 years.",
    "Sign the NDA via DocuSign as Acme's authorised signatory and return it to bd@helix-bio.test.",
)
HOLD = Ask(
    "Should I hold the payment to Baltic Parts OÜ until their new bank details are "
    "verified by phone?",
    "Transfer EUR 48,500.00 to the new IBAN DE89 3704 0044 0532 0130 00 in today's payment run.",
)
PAY = Ask(
    "Please confirm the payment of EUR 62,000.00 to Kraftwerk Logistics GmbH for invoice "
    "KL-2026-443 before I release it.",
    "Release payment of EUR 62,000.00 to Kraftwerk Logistics GmbH in today's run.",
)
DPA = Ask(
    "Can we send the customer list (1,200 records with names and private emails) to our "
    "new CRM vendor before the DPA is signed?",
    "Export table customers_2026 as CSV and upload it to the vendor's import portal today.",
)
SEND = Ask(
    "May I send the signed contract to the counterparty today?",
    "Send the signed contract to Helix Bio AG by email.",
)
CANCEL = Ask("Do you want me to cancel the transfer?", "Transfer EUR 10,000 to Acme Ltd.")
WAIT = Ask("Shall I wait with the filing until Monday?", "File the trademark application today.")
EITHER = Ask(
    "Should I sign the engagement letter or wait for the revised fee schedule?",
    "Sign the engagement letter.",
)

NONE: tuple[str | None, ...] = (None,)
APPROVAL = ("approval",)
CONDITIONAL = ("conditional",)
REJECTION = ("rejection",)
DECLINE = ("decline",)
# A promise to answer later ("I'll look at it tomorrow"): read as I'M ON IT, never an answer.
DEFERRED = ("acknowledgement",)
# Read, not answered: no decision, or a promise to answer later.
UNANSWERED = (None, *DEFERRED)

# The quick-reply prompts, as the links fill them in (in English, whatever the lawyer writes).
APPROVE_PROMPT = "APPROVE\n\nNotes (optional):\n"
WITH_PROMPT = "APPROVE WITH CONDITIONS\n\nConditions (one per line, each starting with -):\n"


@dataclass(frozen=True)
class Trial:
    family: str
    language: str
    text: str
    expect: tuple[str | None, ...] = NONE
    subject: str | None = None
    ask: Ask = NDA


def quick(language: str, keyword: str, body: str, expect: tuple[str | None, ...]) -> Trial:
    return Trial("quick_notes", language, body, expect, subject=f"{keyword} [HFA-00027]", ask=PAY)


@dataclass(frozen=True)
class Language:
    """One language's trials, as its lawyers write them.

    - ``yes_continuation``: a yes-word and an acknowledgement, a deferral or a call first;
    - ``go_ahead_first``: a go-ahead whose object is another step, not the action;
    - ``holdback``: the approach approved, the action held back;
    - ``yes`` / ``no``: bare answers, set against asks that are and are not whether to act;
    - ``limits``: notes under APPROVE that set a limit (a conditional approval);
    - ``stops``: notes under APPROVE that contradict, say NOT, hold back or ask (no decision);
    - ``self_correction``: an approval taken back in the same paragraph;
    - ``natural``: natural answers by the kind they are ("approval", "rejection", ...);
    - ``unread_yes``: yes forms the tables leave unread because another language of the
      script says something else with them (Polish "Tak" is Danish "thanks"): to an ask
      that is whether to act, they approve or decide nothing, and never reject.
    """

    code: str
    yes_continuation: list[str]
    go_ahead_first: list[str]
    holdback: list[str]
    yes: list[str]
    no: list[str]
    limits: list[str]
    stops: list[str]
    self_correction: list[str]
    natural: dict[str, list[str]] = field(default_factory=dict)
    unread_yes: list[str] = field(default_factory=list)

    def families(self) -> dict[str, list[Trial]]:
        return {
            "yes_continuation": self._plain("yes_continuation", self.yes_continuation, UNANSWERED),
            "go_ahead_first": self._plain("go_ahead_first", self.go_ahead_first),
            "holdback": self._plain("holdback", self.holdback),
            "yes_no_ask": self._yes_no(),
            "quick_notes": self._quick_notes(),
            "self_correction": self._plain("self_correction", self.self_correction),
        }

    def natural_trials(self) -> list[Trial]:
        expect = {
            "approval": APPROVAL,
            "rejection": REJECTION,
            "decline": DECLINE,
            "conditional": CONDITIONAL,
        }
        return [
            Trial("natural", self.code, text, expect[kind])
            for kind, texts in self.natural.items()
            for text in texts
        ]

    def _plain(
        self, family: str, texts: list[str], expect: tuple[str | None, ...] = NONE
    ) -> list[Trial]:
        return [Trial(family, self.code, text, expect) for text in texts]

    def _yes_no(self) -> list[Trial]:
        """Every yes and no against asks that are not whether to act (no decision), and
        against the two that are (the answer decides)."""
        trials = []
        for n, yes in enumerate(self.yes):
            for ask in (HOLD, (DPA, CANCEL, WAIT, EITHER)[n % 4]):
                trials.append(Trial("yes_no_ask", self.code, yes, NONE, ask=ask))
            approves = APPROVAL + NONE if yes in self.unread_yes else APPROVAL
            trials.append(Trial("yes_no_ask", self.code, yes, approves, ask=(NDA, SEND)[n % 2]))
        for n, no in enumerate(self.no):
            for ask in (HOLD, (DPA, EITHER)[n % 2]):
                trials.append(Trial("yes_no_ask", self.code, no, NONE, ask=ask))
            trials.append(Trial("yes_no_ask", self.code, no, REJECTION, ask=(NDA, SEND)[n % 2]))
        return trials

    def _quick_notes(self) -> list[Trial]:
        """A limit makes the approval conditional, under either prompt; a NOT, a
        contradiction, a hold-back or a question makes it no decision."""
        trials = [quick(self.code, "APPROVE", APPROVE_PROMPT + f"{note}\n", CONDITIONAL)
                  for note in self.limits]  # fmt: skip
        trials += [quick(self.code, "APPROVE", APPROVE_PROMPT + f"{note}\n", NONE)
                   for note in self.stops]  # fmt: skip
        keyword = "APPROVE WITH CONDITIONS"
        trials += [quick(self.code, keyword, WITH_PROMPT + f"- {note}\n", CONDITIONAL)
                   for note in self.limits[:2]]  # fmt: skip
        trials += [quick(self.code, keyword, WITH_PROMPT + f"- {note}\n", NONE)
                   for note in self.stops[:2] if not note.endswith("?")]  # fmt: skip
        return trials
