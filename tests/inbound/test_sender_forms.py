"""From headers as real clients and MTAs write them: who may answer for the lawyer.

Every From that names exactly one mailbox unambiguously is read (obsolete RFC
5322 syntax included); only what makes the address uncertain is refused.
"""

from __future__ import annotations

from email import message_from_bytes
from email.message import Message
from email.policy import compat32, default
from typing import Any

import pytest

from gateway.inbound.sender import from_address, verify_sender

LAWYER = "counsel@firm.test"

ACCEPTED = [
    "From: counsel@firm.test",
    "From: <counsel@firm.test>",
    "From: Jane Smith <counsel@firm.test>",
    'From: "Jane Smith" <counsel@firm.test>',
    "From: Dr. Jane Smith <counsel@firm.test>",  # obs-phrase: a period unquoted
    "From: J. R. Smith, Esq. <counsel@firm.test>",
    "From: Prof. Dr. med. Jane Smith <counsel@firm.test>",
    'From: "Smith, Jane" <counsel@firm.test>',
    "From: Smith, Jane <counsel@firm.test>",  # Outlook's unquoted comma
    "From: counsel@firm.test (Jane Smith)",
    "From: Jane Smith <counsel@firm.test> (Smith & Partners)",
    "From: =?utf-8?q?J=C3=BCrgen_M=C3=BCller?= <counsel@firm.test>",
    "From: =?UTF-8?B?SsO8cmdlbiBNw7xsbGVy?= <counsel@firm.test>",
    "From: =?iso-8859-1?q?Ren=E9_Dupont?= <counsel@firm.test>",
    "From: Jane Smith <COUNSEL@FIRM.TEST>",
    'From: "counsel@firm.test" <counsel@firm.test>',
    "From: 'counsel@firm.test' <counsel@firm.test>",
    "From: Jane Smith<counsel@firm.test>",
    "From: Jane Smith\n <counsel@firm.test>",  # folded
    'From: "Jane \\"JS\\" Smith" <counsel@firm.test>',
    'From: Jane <"counsel"@firm.test>',
    "From: Jane <@relay.firm.test:counsel@firm.test>",  # obs-route
    "From: Smith & Partners LLP - Jane <counsel@firm.test>",
    "From: Jane Smith (Partner) <counsel@firm.test>",
    'From: "Jane Smith via DocuTrack" <counsel@firm.test>',
    "From: Jane O'Brien <counsel@firm.test>",
    "From: Jane Smith <counsel@firm.test>   ",
    'From: "Smith, Jane (Berlin)" <counsel@firm.test>',
    "From: Jane <mailto:counsel@firm.test>".replace("mailto:", ""),
    "From: Jane\t Smith <counsel@firm.test>",
]

REFUSED = [
    ("From: counsel@firm.test\nFrom: mallory@evil.test", "exactly one From header"),
    ("X-No-From: 1", "exactly one From header"),
    ("From: counsel@firm.test, mallory@evil.test", "exactly one address"),
    ('From: "counsel@firm.test" <mallory@evil.test>', "two addresses"),
    ("From: counsel@firm.test <mallory@evil.test>", ""),
    ("From: Jane (counsel@firm.test) <mallory@evil.test>", ""),
    ("From: mallory@evil.test (counsel@firm.test)", "two addresses"),
    ("From: undisclosed-recipients:;", ""),
    ("From: Team: counsel@firm.test;", "group"),
    ("From: <>", ""),
    ("From: Jane <counsel>", ""),
    ("From: Jane <counsel@firm.test> <other@firm.test>", ""),
    ("From: =?utf-8?q?counsel=40firm=2Etest?= <mallory@evil.test>", ""),
    ("From: mallory@evil.test", "not the recipient"),
    ("From: Jane <counsel@firm.test", ""),
]


def _message(headers: str, policy: Any) -> Message:
    raw = (headers + "\nSubject: x\n\nbody\n").encode("utf-8")
    message: Message = message_from_bytes(raw, policy=policy)
    return message


@pytest.mark.parametrize("headers", ACCEPTED)
@pytest.mark.parametrize("policy", [default, compat32], ids=["default", "compat32"])
def test_every_unambiguous_from_is_the_lawyer(headers: str, policy: Any) -> None:
    check = verify_sender(_message(headers, policy), LAWYER, "")
    assert check.ok, check.reason
    assert check.address == LAWYER


@pytest.mark.parametrize(("headers", "why"), REFUSED)
@pytest.mark.parametrize("policy", [default, compat32], ids=["default", "compat32"])
def test_an_uncertain_from_is_refused(headers: str, why: str, policy: Any) -> None:
    check = verify_sender(_message(headers, policy), LAWYER, "")
    assert not check.ok
    assert why in check.reason


def test_the_table_is_big_enough() -> None:
    assert len(ACCEPTED) + len(REFUSED) >= 30


def test_raw_utf8_display_names_are_read() -> None:
    raw = "From: 王小明 <counsel@firm.test>\nSubject: x\n\nbody\n".encode()
    assert from_address(message_from_bytes(raw, policy=default))[0] == LAWYER


def test_a_lawyers_other_address_is_the_lawyer() -> None:
    message = _message("From: Jane Smith <jane.smith.law@home.test>", default)
    assert not verify_sender(message, LAWYER, "").ok
    check = verify_sender(message, LAWYER, "", aliases=("Jane.Smith.Law@home.test",))
    assert check.ok and check.address == "jane.smith.law@home.test"
