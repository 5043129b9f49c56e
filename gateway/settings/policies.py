"""Reading approval policies, approver groups and delegates from their settings.

``HFA_POLICIES``: ``CATEGORY=RULE; CATEGORY=RULE; *=RULE`` where a rule is

    STEP [then STEP ...] [veto | wait]
    STEP  = GROUP [+ GROUP ...] [within DURATION]
    GROUP = (any | all | N) of (ADDRESS,ADDRESS,... | GROUP-NAME | lawyers)

for example ``legal_review=2 of counsel@firm.test,partner@firm.test,gc@firm.test``,
``2 of legal + 1 of finance``, ``any of legal within 2d then all of board wait``.
``HFA_APPROVER_GROUPS`` names groups (``legal=a@x,b@x; finance=c@x``); ``lawyers``
is the category's HFA_LAWYERS. ``HFA_DELEGATES``: ``PERSON=DELEGATE [FROM..TO]; ...``
with ISO dates, both days included.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from gateway.errors import ConfigError
from gateway.policy import Group, Policy, Step, any_of
from gateway.settings.categories import CATEGORIES, by_category
from gateway.settings.durations import seconds_of

_GROUP = re.compile(r"^(any|all|\d+)\s+of\s+(.+)$", re.IGNORECASE)
_WITHIN = re.compile(r"^(.*?)\s+within\s+(\S+)$", re.IGNORECASE | re.DOTALL)
_ADDRESS = re.compile(r"^[^@\s,;|]+@[^@\s,;|]+$")


def parse_groups(value: str) -> dict[str, tuple[str, ...]]:
    """``legal=a@x,b@x; finance=c@x`` -> {name: addresses}."""
    groups: dict[str, tuple[str, ...]] = {}
    for part in (p.strip() for p in value.split(";")):
        if not part:
            continue
        name, sep, members = part.partition("=")
        name = name.strip().lower()
        if not sep or not re.fullmatch(r"[a-z][a-z0-9_-]*", name) or name == "lawyers":
            raise ConfigError(
                f"HFA_APPROVER_GROUPS: expected NAME=addr,addr;... with a NAME of letters, "
                f"digits, - or _ (not 'lawyers'), got {part!r}"
            )
        groups[name] = _addresses(members, "HFA_APPROVER_GROUPS")
    return groups


def parse_policies(
    value: str,
    categories: tuple[str, ...],
    groups: Mapping[str, tuple[str, ...]],
    lawyers: Mapping[str, tuple[str, ...]],
) -> dict[str, Policy]:
    """``CATEGORY=RULE; ...`` -> {category or '*': policy}."""
    table: dict[str, Policy] = {}
    for key, rule in by_category(value, "HFA_POLICIES", "RULE", categories):
        own = lawyers.get(key) or lawyers.get("*", ())
        table[key] = parse_policy(rule, {**groups, "lawyers": own})
    return table


def parse_policy(text: str, groups: Mapping[str, tuple[str, ...]]) -> Policy:
    """One rule (see the module's docstring); a ConfigError says what is wrong."""
    words = text.strip()
    veto = True
    mode = re.search(r"\s+(veto|wait)$", words, re.IGNORECASE)
    if mode:
        veto = mode.group(1).lower() == "veto"
        words = words[: mode.start()]
    steps = tuple(_step(s, groups, text) for s in re.split(r"\s+then\s+", words, flags=re.I))
    seen: set[str] = set()
    for step in steps:
        if seen & set(step.members):
            raise ConfigError(
                f"HFA_POLICIES: {', '.join(sorted(seen & set(step.members)))} is in two steps "
                f"of {text.strip()!r}; one person approves in one step only"
            )
        seen |= set(step.members)
    return Policy(steps, veto)


def _step(text: str, groups: Mapping[str, tuple[str, ...]], rule: str) -> Step:
    within = None
    timed = _WITHIN.match(text.strip())
    if timed:
        text, within = timed.group(1), _seconds(timed.group(2), rule)
    return Step(tuple(_group(g, groups, rule) for g in re.split(r"\s+\+\s+", text.strip())), within)


def _group(text: str, groups: Mapping[str, tuple[str, ...]], rule: str) -> Group:
    found = _GROUP.match(text.strip())
    if not found:
        raise ConfigError(
            f"HFA_POLICIES: expected 'any of', 'all of' or 'N of' a list of addresses or a "
            f"group name in {rule.strip()!r}, got {text.strip()!r}"
        )
    count, named = found.group(1).lower(), found.group(2).strip()
    if "@" in named:
        members, name = _addresses(named, "HFA_POLICIES"), ""
    elif named.lower() in groups:
        members, name = groups[named.lower()], named.lower()
    else:
        raise ConfigError(
            f"HFA_POLICIES: unknown group {named!r} in {rule.strip()!r}; name it in "
            "HFA_APPROVER_GROUPS, or list the addresses"
        )
    need = None if count == "all" else 1 if count == "any" else int(count)
    if not members or (need is not None and not 1 <= need <= len(members)):
        raise ConfigError(
            f"HFA_POLICIES: {text.strip()!r} asks for {count} of {len(members)} approver(s)"
        )
    return Group(members, need, name)


def _addresses(text: str, setting: str) -> tuple[str, ...]:
    """``a@x|a.home@y, b@x`` -> ('a@x', 'b@x'): a person's other addresses are aliases."""
    out: list[str] = []
    for entry in text.split(","):
        primary = entry.split("|", 1)[0].strip().lower()
        if not primary:
            continue
        if not _ADDRESS.match(primary):
            raise ConfigError(f"{setting}: {primary!r} is not an email address")
        if primary not in out:
            out.append(primary)
    return tuple(out)


def _seconds(text: str, rule: str) -> float:
    seconds = seconds_of(text)
    if seconds is None or seconds <= 0:
        raise ConfigError(f"HFA_POLICIES: 'within {text}' in {rule.strip()!r}: expected 2d, 4h")
    return seconds


@dataclass(frozen=True)
class Delegation:
    """``delegate`` answers for ``person`` between ``start`` and ``end`` (both included)."""

    person: str
    delegate: str
    start: date | None = None
    end: date | None = None

    def active(self, today: date) -> bool:
        return (self.start is None or self.start <= today) and (
            self.end is None or today <= self.end
        )


def parse_delegates(value: str) -> dict[str, Delegation]:
    """``a@x=b@x 2026-12-01..2026-12-24; c@x=d@x`` -> {person: delegation}."""
    table: dict[str, Delegation] = {}
    for part in (p.strip() for p in value.split(";")):
        if not part:
            continue
        person, sep, rest = part.partition("=")
        words = rest.split()
        person = person.strip().lower()
        if not sep or not words or not _ADDRESS.match(person) or not _ADDRESS.match(words[0]):
            raise ConfigError(
                f"HFA_DELEGATES: expected PERSON=DELEGATE [YYYY-MM-DD..YYYY-MM-DD], got {part!r}"
            )
        start, end = _dates(words[1:], part)
        delegate = words[0].lower()
        if delegate == person:
            raise ConfigError(f"HFA_DELEGATES: {person} cannot be their own delegate")
        table[person] = Delegation(person, delegate, start, end)
    return table


def _dates(words: list[str], part: str) -> tuple[date | None, date | None]:
    if not words:
        return None, None
    first, sep, last = " ".join(words).partition("..")
    try:
        start = date.fromisoformat(first.strip()) if first.strip() else None
        end = date.fromisoformat(last.strip()) if last.strip() else None
    except ValueError:
        start = end = date.max
    if not sep or start == date.max or (start and end and end < start):
        raise ConfigError(
            f"HFA_DELEGATES: expected dates as YYYY-MM-DD..YYYY-MM-DD (first before last), "
            f"got {part!r}"
        )
    return start, end


@dataclass(frozen=True)
class ApprovalSettings:
    """HFA_POLICIES, HFA_APPROVER_GROUPS and HFA_DELEGATES, read and checked together."""

    policies: Mapping[str, Policy] = field(default_factory=dict)
    delegates: Mapping[str, Delegation] = field(default_factory=dict)

    def policy_for(self, category: str, lawyers: tuple[str, ...]) -> Policy | None:
        """The category's rule; else any of its ``lawyers`` (None when there are none)."""
        policy = self.policies.get(category) or self.policies.get("*")
        return policy or (any_of(lawyers) if lawyers else None)

    def has_policy(self, category: str) -> bool:
        return category in self.policies or "*" in self.policies

    def approvers(self) -> frozenset[str]:
        return frozenset(a for p in self.policies.values() for a in p.approvers)


def approval_settings(
    policies: str,
    groups: Mapping[str, tuple[str, ...]],
    delegates: Mapping[str, Delegation],
    lawyers: Mapping[str, tuple[str, ...]],
) -> ApprovalSettings:
    """HFA_POLICIES read against the groups and the lawyers it may name (``lawyers``:
    HFA_LAWYERS as {category or '*': primary addresses})."""
    return ApprovalSettings(parse_policies(policies, CATEGORIES, groups, lawyers), delegates)
