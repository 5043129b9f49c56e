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
# Bounds on what a bundle may cost to check (a zip bomb, a zip of many members, a JSON
# bomb): a bundle is a few megabytes, and a thread's emails at most a few of 25 MiB.
# Members all together, uncompressed (``--max-bytes`` raises it):
MAX_BYTES = 256 * 1024 * 1024
MAX_MEMBERS = 10_000
# The zip's central directory: about 100 bytes a member.
MAX_CENTRAL = 8 * 1024 * 1024
# What is parsed (the JSON files, the request email) is read whole, all of it within
# this share of MAX_BYTES (4 MiB by default), so that no parse takes much memory; an
# email is rewritten into the mbox one at a time, each within 1/8 of it (32 MiB).
PARSED_SHARE = 64
EMAIL_SHARE = 8
# The signed notes and the keys are a few lines; a timestamp a few certificates.
MAX_NOTE = 64 * 1024
MAX_STAMP = 1024 * 1024
# Problems printed: a bundle of thousands of added members is named in these lines.
MAX_LINES = 40
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
