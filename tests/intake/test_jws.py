"""JCS (RFC 8785) and the detached JWS the A2H RESPONSE carries."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from gateway.errors import ConfigError
from gateway.intake.jws import KEY_FILE, Signer, canonical, load_key


def test_jcs_orders_members_by_utf16_and_writes_numbers_as_ecmascript() -> None:
    # RFC 8785 3.2.3: "\u20ac" (one UTF-16 unit) sorts before "\U0001f600" (a surrogate pair
    # starting 0xD83D), though its code point is lower than the emoji's only in UTF-16 terms.
    value = {"\U0001f600": 1, "\u20ac": 2, "a": [1.0, 0.5, 1e21, 1e-7, -0.0, None, True]}
    assert canonical(value) == (
        '{"a":[1,0.5,1e+21,1e-7,0,null,true],"\u20ac":2,"\U0001f600":1}'.encode()
    )
    assert canonical({"s": 'q"\\\n\x01é'}) == b'{"s":"q\\"\\\\\\n\\u0001\xc3\xa9"}'
    with pytest.raises(ValueError):
        canonical({"n": float("nan")})


def test_a_detached_jws_verifies_over_the_canonical_payload(tmp_path: Path) -> None:
    signer = Signer(load_key("", tmp_path))
    message = {"type": "RESPONSE", "b": 2, "a": 1}
    signed = signer.signed(message)
    header, empty, signature = signed["signature"].split(".")
    assert empty == ""
    payload = base64.urlsafe_b64encode(canonical(message)).rstrip(b"=").decode()
    jwk = signer.jwks()["keys"][0]
    public = Ed25519PublicKey.from_public_bytes(base64.urlsafe_b64decode(jwk["x"] + "="))
    padded = signature + "=" * (-len(signature) % 4)
    public.verify(base64.urlsafe_b64decode(padded), f"{header}.{payload}".encode())
    # The key is kept: another process (or a restart) signs with the same one.
    assert Signer(load_key("", tmp_path)).kid == signer.kid
    assert (tmp_path / KEY_FILE).stat().st_mode & 0o077 == 0


def test_a_configured_key_is_checked_without_repeating_it() -> None:
    with pytest.raises(ConfigError) as refused:
        load_key("ed25519:not-base64!", Path("/nonexistent"))
    assert "not-base64" not in str(refused.value)
