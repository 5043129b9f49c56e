"""The one reading of a reply: signatures are never conditions, a condition above one keeps
only itself, and the rules a Reading checks when it is made."""

from __future__ import annotations

import pytest

from gateway.replies import Ask, Reading, extract_reply, read_reply, read_text

ASK = Ask("May I sign the NDA with Helix Bio AG?", "Sign the NDA with Helix Bio AG.", "HFA-00007")
APPROVED = ("Approved.", "Genehmigt.", "Approuvé.", "Aprobado.", "Goedgekeurd.")
NAME = "Dana"
BLOCK = (
    "Dana Weber\nPartner\nWeber & Co. Rechtsanwälte mbB\nFriedrichstraße 123, 10117 Berlin\n"
    "T: +49 30 1234567 | M: +49 170 1234567\nd.weber@weber-co.example\nwww.weber-co.example"
)
OUTLOOK = (
    BLOCK + "\n\nThis e-mail and any attachments are confidential and may be privileged. If you "
    "are not the intended recipient, please notify the sender immediately and delete this "
    "message; any use, copying or disclosure is not permitted."
)


def reading(text: str, ask: Ask = ASK) -> Reading:
    return read_reply(read_text(extract_reply(text, None).new_text, None), ask)


@pytest.mark.parametrize("approved", APPROVED)
@pytest.mark.parametrize("signature", [NAME, BLOCK, OUTLOOK], ids=["name", "block", "outlook"])
def test_an_approval_above_a_signature_is_a_bare_approval(approved: str, signature: str) -> None:
    read = reading(f"{approved}\n\n{signature}")
    assert read.kind == "approval" and read.conditions == (), read
    assert "Dana" not in read.said and "+49" not in read.said


@pytest.mark.parametrize("signature", [NAME, BLOCK, OUTLOOK], ids=["name", "block", "outlook"])
def test_a_condition_above_a_signature_keeps_only_the_condition(signature: str) -> None:
    read = reading(f"Approved, provided the liability cap stays at EUR 10,000.\n\n{signature}")
    assert read.kind == "conditional_approval"
    assert read.conditions == ("provided the liability cap stays at EUR 10,000.",)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Approved, again.", "approval"),
        ("Approved.\n\nThanks,\nDana", "approval"),
        ("Approved - see HFA-00012.", "reply"),
        ("Sure, why not, what could go wrong.", "reply"),
        ("Pay it.", "reply"),  # not the action asked: signing
        ("You may sign it.", "approval"),
        ("Don't sign it.", "rejection"),
        ("Vous pouvez signer.", "approval"),
        ("Ne signez pas.", "rejection"),
        ("Bitte nicht unterschreiben.", "rejection"),
        ("Yes, please hold.", "reply"),
    ],
)
def test_what_follows_an_approval_is_a_condition_only_as_one(text: str, kind: str) -> None:
    assert reading(text).kind == kind


def test_a_condition_never_carries_bidi_or_control_characters() -> None:
    read = reading("Approved, only up to EUR 50,000\u202e000,05 \x1b[31m.")
    assert all(ch not in "".join(read.conditions) for ch in "\u202e\x1b")
