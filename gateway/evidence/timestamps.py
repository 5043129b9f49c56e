"""Trusted time: an RFC 3161 timestamp over the bundle's checkpoint, from HFA_TSA_URL.

The request (rfc3161-client) carries the SHA-256 of the checkpoint note and a
nonce, and asks for the TSA's certificate; the answer is kept whole in the
bundle, where the verifier checks its signature and that it stamps this very
checkpoint (``verifier.check_timestamp``, which the export runs first too: it
reads DER leniently where TSAs, OpenSSL's among them, do not sort their
certificates as DER would). A TSA that cannot be reached or
refuses fails the export: a bundle promised trusted time carries it or is not
made.
"""

from __future__ import annotations

import urllib.error
import urllib.request

from rfc3161_client import TimestampRequestBuilder

from gateway.errors import TimestampUnavailable
from gateway.evidence import verifier as check
from gateway.settings.config import Config

TSA_SECONDS = 30.0


def stamp_checkpoint(config: Config, note: str) -> list[tuple[str, bytes, str]]:
    """The TSA's answer as a bundle file; nothing when no TSA is configured."""
    url = config.raw.get("tsa_url", "").strip()
    if not url:
        return []
    if not url.startswith(("http://", "https://")):
        raise TimestampUnavailable(f"HFA_TSA_URL: expected an http(s) URL, got {url!r}")
    query = TimestampRequestBuilder(data=note.encode(), nonce=True, cert_req=True).build()
    asked = urllib.request.Request(  # noqa: S310 (http(s) only, checked above)
        url,
        data=query.as_bytes(),
        headers={"Content-Type": "application/timestamp-query"},
    )
    try:
        with urllib.request.urlopen(asked, timeout=TSA_SECONDS) as answer:  # noqa: S310
            raw = answer.read(1024 * 1024)
    except (urllib.error.URLError, OSError) as exc:
        raise TimestampUnavailable(f"the TSA at {url} did not answer: {exc}") from None
    try:
        # Read as the verifier will read it: a TSA's answer that it refuses is no use.
        check.check_timestamp(raw, note.encode())
    except Exception as exc:  # the TSA's DER, read as untrusted input
        raise TimestampUnavailable(f"the TSA at {url} answered no valid timestamp: {exc}") from None
    return [(check.TIMESTAMP, raw, f"the TSA's RFC 3161 timestamp of {check.CHECKPOINT}")]
