"""A request's reference, as agents and lawyers see it: HFA-00042 for request 42."""

from __future__ import annotations


def reference_for(number: int) -> str:
    """HFA-00001 ... HFA-99999, then wider (HFA-100000)."""
    return f"HFA-{number:05d}"


def number_from_reference(reference: str) -> int | None:
    prefix, _, digits = reference.strip().upper().partition("-")
    if prefix != "HFA" or not digits.isdigit() or len(digits) < 5 or len(digits) > 18:
        return None
    return int(digits)
