from __future__ import annotations

from pathlib import Path

import pytest

from gateway.errors import ConfigError
from gateway.tokens import (
    TOKEN_CHARS,
    ReplyTokens,
    add_next_key,
    hash_secret,
    load_or_create_keys,
    new_secret,
    secret_matches,
    sign_with_next_key,
)


@pytest.fixture
def tokens() -> ReplyTokens:
    return ReplyTokens(("old-key-aaaaaaaaaaaaaaaa", "new-key-bbbbbbbbbbbbbbbb"))


def test_round_trip_and_shape(tokens: ReplyTokens) -> None:
    token = tokens.issue(2**63 + 5)
    assert len(token) == TOKEN_CHARS and token == token.lower()
    assert set(token) <= set("abcdefghijklmnopqrstuvwxyz234567")
    verified = tokens.verify(token)
    assert verified is not None and verified.recipient_id == 2**63 + 5
    assert len(tokens.reply_address(1, "hfa.example").split("@")[0]) < 64


def test_case_is_ignored(tokens: ReplyTokens) -> None:
    token = tokens.issue(42)
    assert tokens.verify(token.upper()) == tokens.verify(token)


@pytest.mark.parametrize("position", range(TOKEN_CHARS))
def test_any_changed_character_is_refused(tokens: ReplyTokens, position: int) -> None:
    token = tokens.issue(42)
    swapped = "b" if token[position] != "b" else "c"
    tampered = token[:position] + swapped + token[position + 1 :]
    assert tokens.verify(tampered) is None


@pytest.mark.parametrize("junk", ["", "abc", "reply", "a" * 31, "1" * 31, "ä" * 31, "a" * 200])
def test_junk_is_refused(tokens: ReplyTokens, junk: str) -> None:
    assert tokens.verify(junk) is None


def test_rotation_old_keys_verify_newest_signs() -> None:
    before = ReplyTokens(("k1-xxxxxxxxxxxxxxxxxx",))
    after = ReplyTokens(("k1-xxxxxxxxxxxxxxxxxx", "k2-yyyyyyyyyyyyyyyyyy"))
    only_new = ReplyTokens(("k2-yyyyyyyyyyyyyyyyyy",))
    old_token = before.issue(7)
    assert after.verify(old_token) is not None
    new_token = after.issue(7)
    assert new_token != old_token and only_new.verify(new_token) is not None
    assert only_new.verify(old_token) is None


def test_token_found_in_our_message_ids(tokens: ReplyTokens) -> None:
    mid = tokens.message_id(9, "hfa.example")
    found = tokens.tokens_in_message_ids(f"<other@x> {mid.upper()}")
    assert len(found) == 1 and tokens.verify(found[0]) is not None


def test_address_parsing(tokens: ReplyTokens) -> None:
    token = tokens.issue(3)
    assert tokens.token_from_address(f"<reply+{token}@HFA.example>", "hfa.example") == token
    assert tokens.token_from_address(f"reply+{token}@evil.example", "hfa.example") is None
    assert tokens.token_from_address("reply@hfa.example", "hfa.example") is None


def test_secrets_are_random_and_hashed() -> None:
    a, b = new_secret("hfat_"), new_secret("hfat_")
    assert a != b and a.startswith("hfat_") and len(a) >= 5 + 43
    assert secret_matches(a, hash_secret(a)) and not secret_matches(b, hash_secret(a))
    assert a not in hash_secret(a)


def test_keys_generated_once_and_rotated(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    first = load_or_create_keys((), tmp_path)
    assert "HFA_SECRET_KEYS is not set" in caplog.text
    assert first[0] not in caplog.text
    assert load_or_create_keys((), tmp_path) == first
    assert (tmp_path / "secret_keys").stat().st_mode & 0o077 == 0
    # Step 1: the new key is accepted (first in the list) and signs nothing yet.
    add_next_key(tmp_path)
    accepting = load_or_create_keys((), tmp_path)
    assert len(accepting) == 2 and accepting[-1] == first[0]
    assert (tmp_path / "secret_keys.next").stat().st_mode & 0o077 == 0
    # Step 2: it goes to the end, where it signs; the old key still verifies.
    assert sign_with_next_key(tmp_path) == 2
    keys = load_or_create_keys((), tmp_path)
    assert keys[0] == first[0] and keys[1] == accepting[0] and len(keys) == 2
    with pytest.raises(ConfigError):
        sign_with_next_key(tmp_path)
