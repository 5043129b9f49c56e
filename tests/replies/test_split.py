"""The text families the splitter used to miss: the new text is the lawyer's words only."""

from __future__ import annotations

import pytest

from gateway.replies import extract_reply
from tests.replies.text_families import CASES


@pytest.mark.parametrize(("name", "body", "new_text"), CASES, ids=[c[0] for c in CASES])
def test_text_family_is_split(name: str, body: str, new_text: str) -> None:
    reply = extract_reply(body, None)
    assert reply.new_text == new_text, reply
    # What was set aside is kept beside the new text, never lost.
    rest = body.replace(new_text, "", 1).strip()
    if rest:
        assert rest.split("\n")[0].strip() in reply.elided
