"""How the decision reader does on the adversarial sets and on a public reply corpus.

``PYTHONPATH=$PWD python -m bench.decisions`` prints, from a checkout:

- false approvals per family (a reply read as an approval the lawyer did not give,
  or as a bare approval where the lawyer set conditions): the goal is none;
- right readings per family, and natural answers read right per language and kind;
- the talon corpus (``HFA_TEST_CORPUS_DIR`` or ``../shared/corpus/talon``): replies
  whose new text is extracted as talon expects;
- the cost of reading one reply (extract + decision), per reply, in microseconds.
"""

from __future__ import annotations

import email
import email.policy
import os
import sys
import time
from collections import Counter, defaultdict
from email.message import EmailMessage
from pathlib import Path

from gateway.replies import Ask, Decision, DecisionKind, decide_answer, extract_reply, read_decision
from tests.replies.adversarial import ALL_TRIALS, FAMILIES, HELD_OUT, NATURAL, Trial
from tests.replies.text_families import CASES as TEXT_FAMILIES

_ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("HFA_TEST_CORPUS_DIR", str(_ROOT.parent / "shared/corpus/talon")))


def outcome(decision: Decision) -> str | None:
    """The reading as the trial tables name it."""
    if decision.kind is DecisionKind.APPROVAL:
        return "conditional" if decision.conditions else "approval"
    return decision.kind.value if decision.kind else None


def read(trial: Trial) -> str | None:
    new_text = extract_reply(trial.text, None).new_text
    return outcome(decide_answer(read_decision(new_text, trial.subject), trial.ask))


def false_approval(trial: Trial, got: str | None) -> bool:
    if got == "approval":
        return "approval" not in trial.expect
    return got == "conditional" and not {"approval", "conditional"} & set(trial.expect)


def families() -> int:
    total_false = 0
    print("family              trials  right  false approvals")
    for name, trials in FAMILIES.items():
        got = [(trial, read(trial)) for trial in trials]
        right = sum(result in trial.expect for trial, result in got)
        false = [(trial, result) for trial, result in got if false_approval(trial, result)]
        total_false += len(false)
        print(f"{name:<20}{len(trials):>6}{right:>7}{len(false):>17}")
        for trial, result in false:
            print(f"    FALSE {trial.language}: {trial.text!r} -> {result}")
    natural_false = [t for t in NATURAL if false_approval(t, read(t))]
    total_false += len(natural_false)
    print(f"{'natural':<20}{len(NATURAL):>6}{'':>7}{len(natural_false):>17}")
    print(f"false approvals in all {len(ALL_TRIALS)} trials: {total_false}")
    held = [(trial, read(trial)) for trial in HELD_OUT]
    held_false = [(trial, result) for trial, result in held if false_approval(trial, result)]
    right = sum(result in trial.expect for trial, result in held)
    print(
        f"held-out set (not tuned on): {len(held)} trials, {right} right, {len(held_false)} false approvals"
    )
    for trial, result in held_false:
        print(f"    FALSE {trial.language}: {trial.text!r} -> {result}")
    return total_false + len(held_false)


def natural() -> None:
    right: dict[str, Counter[str]] = defaultdict(Counter)
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    for trial in NATURAL:
        kind = trial.expect[0] or "none"
        seen[trial.language][kind] += 1
        right[trial.language][kind] += read(trial) in trial.expect
    kinds = ("approval", "rejection", "decline", "conditional")
    print("\nnatural answers read right (right/total)")
    print("lang  " + "  ".join(f"{k:>11}" for k in kinds) + "        all")
    for language in sorted(seen):
        cells = [f"{right[language][k]:>5}/{seen[language][k]:<5}" for k in kinds]
        total = f"{sum(right[language].values())}/{sum(seen[language].values())}"
        print(f"{language:<6}" + "  ".join(f"{c:>11}" for c in cells) + f"{total:>11}")
    for kind in kinds:
        r = sum(right[lang][kind] for lang in seen)
        n = sum(seen[lang][kind] for lang in seen)
        print(f"  {kind}: {r}/{n}")


def _part(message: EmailMessage, subtype: str) -> str | None:
    part = message.get_body((subtype,))
    content = part.get_content() if part is not None else None
    return content if isinstance(content, str) else None


def corpus() -> list[tuple[str | None, str | None]]:
    """Talon's replies: how many are extracted as expected; their bodies, for timing."""
    bodies: list[tuple[str | None, str | None]] = []
    if not CORPUS.is_dir():
        print(f"\ntalon corpus not found at {CORPUS}")
        return bodies
    good = total = 0
    for path in sorted((CORPUS / "standard_replies").glob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        plain, html = _part(message, "plain"), _part(message, "html")
        bodies.append((plain, html))
        expected_file = path.with_name(f"{path.stem}_reply_text")
        expected = (
            expected_file.read_text(encoding="utf-8").strip() if expected_file.exists() else "Hello"
        )
        new_text = extract_reply(plain, html).new_text
        total += 1
        # Talon keeps "Sent from my iPhone" and "-- " signatures that this reader sets aside.
        good += new_text in (expected, "Hello")
    html_good = html_total = 0
    for path in sorted((CORPUS / "html_replies").glob("*.html")):
        html = path.read_text(encoding="utf-8")
        bodies.append((None, html))
        reply = extract_reply(None, html)
        html_total += 1
        html_good += "Hi. I am fine." in reply.new_text and "How are you" not in reply.new_text
    families = sum(extract_reply(body, None).new_text == text for _n, body, text in TEXT_FAMILIES)
    print(
        f"\ntext families (tests/replies/text_families.py), new text as expected: {families}/{len(TEXT_FAMILIES)}"
    )
    print(f"talon standard replies, new text as expected: {good}/{total}")
    print(f"talon html replies, new text as expected: {html_good}/{html_total}")
    return bodies


def cost(bodies: list[tuple[str | None, str | None]]) -> None:
    """CPU microseconds per reply: extract the new text, read the decision, decide the
    answer. Process time, so other work on the machine does not count; the language
    cache is emptied each round, so every reply is identified afresh."""
    replies: list[tuple[str | None, str | None, str | None, Ask]]
    replies = [(t.text, None, t.subject, t.ask) for t in ALL_TRIALS]
    ask = FAMILIES["holdback"][0].ask
    replies += [(plain, html, "Re: [HFA-00001] Legal review", ask) for plain, html in bodies]
    rounds = 5
    spent = 0.0
    for _ in range(rounds):
        _forget_languages()
        started = time.process_time()
        for plain, html, subject, ask in replies:
            decide_answer(read_decision(extract_reply(plain, html).new_text, subject), ask)
        spent += time.process_time() - started
    per_reply = spent / (rounds * len(replies)) * 1e6
    print(
        f"\nper reply (extract + decision + answer), {len(replies)} replies x {rounds}: {per_reply:.0f} us CPU"
    )


def _forget_languages() -> None:
    # Looked up, not imported: the bench also runs on checkouts from before it existed.
    language = sys.modules.get("gateway.replies.language")
    if language is not None:
        language._identify.cache_clear()


def main() -> int:
    false = families()
    natural()
    cost(corpus())
    return 1 if false else 0


if __name__ == "__main__":
    sys.exit(main())
