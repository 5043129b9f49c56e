"""The bundle's file names and what a check finds: problems, each naming its file."""

from __future__ import annotations

from dataclasses import dataclass, field

FORMAT = "hfa-evidence/1"
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
KEYS = "keys.txt"
CHECKPOINT = "checkpoint.txt"
ENTRIES = "audit/entries.json"
MESSAGES = "messages.json"
THREAD = "thread.json"
SENDERS = "senders.json"
MBOX = "thread.mbox"
REQUEST_HTML = "request-email.html"
REQUEST_TEXT = "request-email.txt"
TIMESTAMP = "timestamps/checkpoint.tsr"
# Files outside the manifest: the manifest itself and its signature.
UNLISTED = (MANIFEST, SIGNATURE)
# A bundle is a few megabytes: a member beyond this is not read (a zip bomb).
MAX_MEMBER = 256 * 1024 * 1024
DASH = "\u2014"


@dataclass(frozen=True)
class Problem:
    path: str
    what: str

    def describe(self) -> str:
        return f"{self.path}: {self.what}"


@dataclass
class Verdict:
    reference: str = ""
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def fail(self, path: str, what: str) -> None:
        self.problems.append(Problem(path, what))
