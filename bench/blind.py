"""How the reader does on the sets written blind (``tests/replies/blind``).

``PYTHONPATH=$PWD python -m bench.blind`` prints, for each set: the false approvals (a
reply read as an approval the lawyer did not give, or as a bare approval where the
lawyer set conditions), and the share of clear decisions (approvals, approvals with
conditions, rejections, declines) read exactly, per family, per language and with or
without a signature block; then the CPU per reply.

Read as the worker reads: the new text split from the rest (``extract_reply``), the
text read alone (``read_text``), then against the ask (``read_reply``).
"""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable

from tests.replies.blind import BlindCase, load

CLEAR = ("approval", "conditional", "rejection", "decline")


def reader() -> Callable[[BlindCase], str | None]:
    """The reading of a case, named as the sets name it."""
    from gateway import replies

    def read(case: BlindCase) -> str | None:
        new_text = replies.extract_reply(case.reply, None).new_text
        ask = replies.Ask(case.request, case.proposed_action, "HFA-00042")
        reading = replies.read_reply(replies.read_text(new_text, None), ask)
        kind = reading.kind
        if kind == "conditional_approval":
            return "conditional"
        return kind if kind in CLEAR else None

    return read


def false_approval(case: BlindCase, got: str | None) -> bool:
    if got == "approval":
        return case.expect != "approval"
    return got == "conditional" and case.expect not in ("approval", "conditional")


def report(name: str, read: Callable[[BlindCase], str | None]) -> tuple[int, float]:
    cases = load(name)
    start = time.process_time()
    got = [(case, read(case)) for case in cases]
    cpu = (time.process_time() - start) / len(cases)
    false = [(c, g) for c, g in got if false_approval(c, g)]
    clear = [(c, g) for c, g in got if c.expect in CLEAR]
    right = [(c, g) for c, g in clear if g == c.expect]
    share = len(right) / len(clear)
    print(f"set {name}: {len(cases)} replies, {len(clear)} clear decisions")
    print(f"false approvals: {len(false)}")
    for case, result in false:
        print(f"    FALSE {case.id}: {case.reply[:70]!r} -> {result}")
    print(f"clear decisions read exactly: {len(right)}/{len(clear)} = {share:.0%}")
    nulls = [(c, g) for c, g in got if c.expect is None]
    print(f"no-decision replies read as none: {sum(g is None for _, g in nulls)}/{len(nulls)}")
    keys: tuple[tuple[str, Callable[[BlindCase], str]], ...] = (
        ("family", lambda c: c.family),
        ("language", lambda c: c.language),
        ("signature", lambda c: c.signature),
    )
    for title, key in keys:
        totals: Counter[str] = Counter()
        hits: Counter[str] = Counter()
        falses: defaultdict[str, int] = defaultdict(int)
        for case, result in got:
            falses[key(case)] += false_approval(case, result)
            if case.expect in CLEAR:
                totals[key(case)] += 1
                hits[key(case)] += result == case.expect
        print(f"by {title}: " + ", ".join(
            f"{k} {hits[k]}/{totals[k]}" + (f" ({falses[k]} false)" if falses[k] else "")
            for k in sorted(set(totals) | set(falses))
        ))  # fmt: skip
    print(f"CPU per reply: {cpu * 1e6:.0f} µs")
    return len(false), share


def main(argv: list[str]) -> int:
    names = argv or ["2026-12"]
    read = reader()
    for name in names:
        report(name, read)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
