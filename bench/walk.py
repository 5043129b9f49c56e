"""The walk of one lawyer's reply through the code, measured by tracing it.

``PYTHONPATH=$PWD python -m bench.walk [--json] [--floors]`` builds a gateway in this
process as the tests do (a temporary data directory, SQLite, a DNS server on loopback
that knows no names), files one request, composes the email the lawyer receives,
stores the lawyer's ordinary answer to it ("Approved.", to the reply address) and
traces one call of ``inbound.worker.process_batch(services, [id])`` with
``sys.setprofile``. Nothing external is started.

What is counted (files under ``gateway/``, migrations left out; a *room* is one module):

- a *move* is a call made from gateway code into a function of another gateway module.
  Its caller is the nearest gateway frame below it on the stack, also when library code
  sits between them (``contextlib``, SQLAlchemy events): those moves are counted apart as
  ``through a library``. A generator resumed is not a new call;
- the *walk* is process_batch's module, then the module each move enters, in order; a
  *stay* is a maximal stretch of the walk in one module;
- a *climb back up* is a move from a room on a lower floor into one on a higher floor
  (the floors of ``bench.floors``), i.e. gateway code calling back into a layer above it;
- a *return* is a stay in a module the walk had already left.

A dynamic trace sees every small helper a reading of the code passes over, so the
figures are given three times: at all depths; for moves whose caller is at most 3 gateway
frames below process_batch (process_batch's own frame is depth 0); and as the walk of the
reply's data, the moves into a function that receives one of the reply's values as an
argument (the stored message, its parse, the request, the recipient, a human turn, the
reply and the answer values), at any depth: the path the message itself takes.

process_batch without ``already_read`` reads each message in its own process
(``parse_stored`` in ``_parse_all``), not in a reading process (``inbound/reading_lane``,
which only the running worker's ``MailReader`` uses): the whole read is in the trace.
"""

from __future__ import annotations

import argparse
import dis
import json
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from sqlalchemy import select

from bench import floors
from gateway.inbound import worker
from gateway.inbound.listener import store_inbound
from gateway.intake.filing import file_request
from gateway.services import Services, build_services
from gateway.store.models import OutboxItem
from tests.conftest import LAWYER, make_config
from tests.lawyer_mails import compose_item
from tests.mailkit import reply_to

DEPTH = 3
BLOBS = "store/blobs.py"
RECORD = "inbound/record.py"


@dataclass(frozen=True)
class Move:
    caller: str
    callee: str
    depth: int  # of the caller, in gateway frames above process_batch's (0)
    through_library: bool
    carries_reply: bool = False  # the callee received one of the reply's values


@dataclass
class Trace:
    first: str
    moves: list[Move] = field(default_factory=list)
    calls: int = 0  # every call of a gateway function under process_batch
    elsewhere: int = 0  # gateway calls outside process_batch's stack (other threads)
    importing: int = 0  # gateway calls made by a module body run by an import
    outcome: str = ""


def _relative(filename: str) -> str | None:
    try:
        relative = Path(filename).resolve().relative_to(floors.GATEWAY).as_posix()
    except ValueError:
        return None
    return None if floors.skipped(relative) else relative


@cache
def _module(filename: str) -> str | None:
    return _relative(filename)


@cache
def _first_resume(code: CodeType) -> int:
    """The offset of the RESUME that starts a generator's body: a 'call' event past it
    is the generator resumed, not called."""
    for instruction in dis.get_instructions(code):
        if instruction.opname == "RESUME":
            return instruction.offset
    return 0


def _resumed(frame: FrameType) -> bool:
    generator = frame.f_code.co_flags & (0x20 | 0x80 | 0x200)  # generator, coroutine, async gen
    return bool(generator) and frame.f_lasti > _first_resume(frame.f_code)


@cache
def _reply_types() -> tuple[type, ...]:
    """The types of the stored reply's values, as every tree has them."""
    from gateway.inbound.mailparse import ParsedMail
    from gateway.store.models import InboundMessage, Recipient, Request, Turn

    return (InboundMessage, ParsedMail, Request, Recipient, Turn)


# The values later trees pass the reply in (``inbound.reply``), known by name: the module
# is the inbound package's own, and older trees have none.
_REPLY_VALUES = {"Reply", "Answer"}


def _is_reply_value(value: object) -> bool:
    kind = type(value)
    return isinstance(value, _reply_types()) or (
        kind.__name__ in _REPLY_VALUES and kind.__module__ == "gateway.inbound.reply"
    )


def _carries_reply(frame: FrameType) -> bool:
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    values = frame.f_locals
    return any(_is_reply_value(values.get(name)) for name in code.co_varnames[:count])


def trace(call: Callable[[], list[str]], root: CodeType) -> Trace:
    """Run ``call`` under the profiler; ``root`` is process_batch's code."""
    found = Trace(first=_module(root.co_filename) or "?")

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        callee = _module(frame.f_code.co_filename)
        if callee is None or frame.f_code is root or _resumed(frame):
            return
        caller: str | None = None
        through = False
        depth = 0
        seen_root = False
        back = frame.f_back
        importing = frame.f_code.co_name == "<module>"
        while back is not None:
            importing = importing or back.f_code.co_name == "<module>"
            module = _module(back.f_code.co_filename)
            if module is None:
                through = through or caller is None
            else:
                if caller is None:
                    caller = module
                if back.f_code is root:
                    seen_root = True
                    break
                depth += 1
            back = back.f_back
        if not seen_root or caller is None:
            found.elsewhere += 1
            return
        if importing:
            found.importing += 1
            return
        found.calls += 1
        if caller != callee:
            found.moves.append(Move(caller, callee, depth, through, _carries_reply(frame)))

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        outcomes = call()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    found.outcome = ",".join(outcomes)
    return found


def figures(found: Trace, max_depth: int | None, *, data: bool = False) -> dict[str, Any]:
    moves = [m for m in found.moves if max_depth is None or m.depth <= max_depth]
    if data:
        moves = [m for m in moves if m.carries_reply]
    walk = [found.first, *(m.callee for m in moves)]
    stays = [room for i, room in enumerate(walk) if i == 0 or walk[i - 1] != room]
    left: set[str] = set()
    returns = 0
    for i, room in enumerate(stays):
        if room in left:
            returns += 1
        if i:
            left.add(stays[i - 1])
    floor = _floor_of
    climbs = [m for m in moves if floor(m.callee) > floor(m.caller)]
    entered = Counter(stays)
    return {
        "depth": ("all" if max_depth is None else f"<= {max_depth}") + (", data" if data else ""),
        "moves": len(moves),
        "moves_through_library": sum(m.through_library for m in moves),
        "stays": len(stays),
        "rooms": len(entered),
        "climbs_back_up": len(climbs),
        "climbs": [f"{m.caller} -> {m.callee}" for m in climbs],
        "returns": returns,
        "first_room": stays[0],
        "most_entered": entered.most_common(10),
        "blobs_entered": entered[BLOBS],
        "record_entered": entered[RECORD],
        "walk": stays,
    }


def _floor_of(module: str) -> int:
    return _floors()[floors.room_of(module)]


@cache
def _floors() -> dict[str, int]:
    return floors.draw().floors


def _gateway(work: Path) -> Services:
    """A gateway as the tests build it, with nothing filed yet."""
    return build_services(make_config(work))


def _answer_stored(services: Services) -> int:
    """One request filed, the email the lawyer receives composed, the answer stored."""
    with services.db.transaction() as session:
        file_request(services, session, {"category": "legal_review", "request": "Read it."})
        # The email of the request just filed: the newest one to a lawyer.
        newest = select(OutboxItem).where(OutboxItem.purpose == "request")
        item = session.scalars(newest.order_by(OutboxItem.id.desc()).limit(1)).one()
        item_id = item.id
    email = compose_item(services, item_id)
    answer = reply_to(email, "Approved.")
    rcpt = str(email["Reply-To"])
    return store_inbound(services, answer.as_bytes(), "127.0.0.1", LAWYER, [rcpt])


def measure(*, warm: bool = False) -> dict[str, Any]:
    """The figures; ``warm``: a first reply (to another request) processed untraced before,
    as in a worker that has run a while (its caches filled, its DNS answers remembered)."""
    with tempfile.TemporaryDirectory(prefix="hfa-walk-") as temp:
        services = _gateway(Path(temp))
        try:
            if warm:
                worker.process_batch(services, [_answer_stored(services)])
            inbound_id = _answer_stored(services)
            found = trace(
                lambda: worker.process_batch(services, [inbound_id]),
                worker.process_batch.__code__,
            )
        finally:
            services.close()
    return {
        "warm": warm,
        "outcome": found.outcome,
        "gateway_calls": found.calls,
        "calls_elsewhere": found.elsewhere,
        "calls_importing": found.importing,
        "all": figures(found, None),
        "shallow": figures(found, DEPTH),
        "data": figures(found, None, data=True),
        "implied_floors": floors.draw().implied,
    }


def report(result: dict[str, Any]) -> str:
    rows = [
        ("moves (calls into another module)", "moves"),
        ("  of which through a library frame", "moves_through_library"),
        ("stays", "stays"),
        ("rooms (distinct modules)", "rooms"),
        ("climbs back up", "climbs_back_up"),
        ("returns", "returns"),
        (f"{BLOBS} entered", "blobs_entered"),
        (f"{RECORD} entered", "record_entered"),
    ]
    full, shallow, data = result["all"], result["shallow"], result["data"]
    out = [
        f"walk of process_batch(services, [id]): one reply 'Approved.', outcome "
        f"{result['outcome']}{' (after a first reply, untraced)' if result['warm'] else ''}; "
        f"{result['gateway_calls']} gateway calls traced, {result['calls_importing']} more run "
        f"by imports and {result['calls_elsewhere']} outside its stack left out",
        f"first room: {full['first_room']}",
        "",
        f"{'':<38} {'all depths':>11} {'depth <= ' + str(DEPTH):>11} {'its data':>11}",
    ]
    out += [
        f"{label:<38} {full[key]:>11} {shallow[key]:>11} {data[key]:>11}" for label, key in rows
    ]
    for figure in (full, shallow, data):
        out.append("")
        out.append(f"modules entered most often (depth {figure['depth']}):")
        out += [f"  {n:>5}  {module}" for module, n in figure["most_entered"]]
        climbs = Counter(figure["climbs"])
        out.append(f"climbs back up (depth {figure['depth']}): {len(figure['climbs'])}")
        out += [f"  {n:>5}  {what}" for what, n in climbs.most_common()]
    out.append("")
    out.append(f"the walk at depth <= {DEPTH}, stay by stay:")
    out += [f"  {i:>3}  {room}" for i, room in enumerate(shallow["walk"], 1)]
    out.append("")
    out.append("the walk of the reply's data, stay by stay:")
    out += [f"  {i:>3}  {room}" for i, room in enumerate(data["walk"], 1)]
    implied = ", ".join(f"{r} {f}" for r, f in sorted(result["implied_floors"].items()))
    out.append("")
    out.append(f"floors implied by imports (not in the table): {implied}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.walk", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--floors", action="store_true", help="the structure drawing instead")
    parser.add_argument(
        "--warm", action="store_true", help="process a first reply untraced, then trace the next"
    )
    args = parser.parse_args(argv)
    if args.floors:
        drawing = floors.draw()
        print(
            json.dumps(floors.drawing_json(drawing), indent=1)
            if args.json
            else floors.drawing_text(drawing)
        )
        return 0
    result = measure(warm=args.warm)
    print(json.dumps(result, indent=1) if args.json else report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
