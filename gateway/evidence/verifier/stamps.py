"""RFC 3161 timestamps: DER read just far enough to check one, with cryptography alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID

# --- RFC 3161 timestamps: DER read just far enough to check one -----------------------

_OID_MESSAGE_DIGEST = bytes.fromhex("2a864886f70d010904")
_HASHES: dict[bytes, hashes.HashAlgorithm] = {
    bytes.fromhex("608648016503040201"): hashes.SHA256(),
    bytes.fromhex("608648016503040202"): hashes.SHA384(),
    bytes.fromhex("608648016503040203"): hashes.SHA512(),
}


def _tlv(data: bytes, pos: int = 0) -> tuple[int, int, int]:
    """(tag, start of content, end of content) of the DER element at ``pos``."""
    tag, length = data[pos], data[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        if not 0 < count <= 4:
            raise ValueError("a DER length of an unsupported size")
        length = int.from_bytes(data[pos : pos + count], "big")
        pos += count
    if pos + length > len(data):
        raise ValueError("a DER element runs past its end")
    return tag, pos, pos + length


def _children(data: bytes, start: int, end: int) -> list[tuple[int, int, int, int]]:
    """(tag, element start, content start, content end) of each element in [start, end)."""
    out = []
    while start < end:
        tag, content, stop = _tlv(data, start)
        out.append((tag, start, content, stop))
        start = stop
    return out


def _only(data: bytes, element: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
    return _children(data, element[2], element[3])


@dataclass(frozen=True)
class Stamp:
    gen_time: str
    tsa: str
    fingerprint: str


def check_timestamp(response: bytes, stamped: bytes) -> Stamp:
    """The time a TSA vouched that ``stamped`` existed; ValueError unless its signature holds.

    TimeStampResp -> ContentInfo -> SignedData (RFC 5652): the TSTInfo's message
    imprint must be the hash of ``stamped``; the signer's messageDigest attribute
    the hash of the TSTInfo; and the signature over the signed attributes must
    verify with one of the enclosed certificates, marked for time-stamping.
    """
    resp = _children(response, *_tlv(response)[1:])
    status = _only(response, resp[0])[0]
    if len(resp) < 2 or int.from_bytes(response[status[2] : status[3]], "big") not in (0, 1):
        raise ValueError("no timestamp was granted")
    content_info = _only(response, resp[1])
    signed = _only(response, _only(response, content_info[1])[0])
    enclosed = [c for c in signed if response[c[1]] == 0xA0]
    encap = _only(response, signed[2])
    tst = _only(response, _only(response, encap[1])[0])[0]
    tst_der = response[tst[1] : tst[3]]
    tst_fields = _children(tst_der, *_tlv(tst_der)[1:])
    imprint = _only(tst_der, tst_fields[2])
    algorithm = _HASHES[
        tst_der[_only(tst_der, imprint[0])[0][2] : _only(tst_der, imprint[0])[0][3]]
    ]
    wanted = hashes.Hash(algorithm)
    wanted.update(stamped)
    if tst_der[imprint[1][2] : imprint[1][3]] != wanted.finalize():
        raise ValueError("it stamps something other than this file")
    gen_time = tst_der[tst_fields[4][2] : tst_fields[4][3]].decode("ascii")
    certificates = [
        x509.load_der_x509_certificate(response[c[1] : c[3]])
        for c in (_only(response, enclosed[0]) if enclosed else [])
    ]
    signer = _only(response, signed[-1])[0]
    parts = _only(response, signer)
    digest_alg = _HASHES[
        response[_only(response, parts[2])[0][2] : _only(response, parts[2])[0][3]]
    ]
    attrs = parts[3]
    if response[attrs[1]] != 0xA0:
        raise ValueError("the signer has no signed attributes")
    content_hash = hashes.Hash(digest_alg)
    content_hash.update(tst_der)
    digest = None
    for attr in _only(response, attrs):
        oid, values = _only(response, attr)
        if response[oid[2] : oid[3]] == _OID_MESSAGE_DIGEST:
            value = _only(response, values)[0]
            digest = response[value[2] : value[3]]
    if digest != content_hash.finalize():
        raise ValueError("its signed digest is not the digest of its content")
    signed_attrs = b"\x31" + response[attrs[1] + 1 : attrs[3]]
    signature = response[parts[5][2] : parts[5][3]]
    for certificate in certificates:
        if _signed_by(certificate, signature, signed_attrs, digest_alg):
            usage = certificate.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
            if ExtendedKeyUsageOID.TIME_STAMPING not in usage:
                raise ValueError("its signer's certificate is not for time-stamping")
            print_ = certificate.fingerprint(hashes.SHA256()).hex()
            return Stamp(gen_time, certificate.subject.rfc4514_string(), print_)
    raise ValueError("its signature does not verify with the certificate it carries")


def _signed_by(
    certificate: x509.Certificate, signature: bytes, data: bytes, algorithm: Any
) -> bool:
    key = certificate.public_key()
    try:
        if isinstance(key, rsa.RSAPublicKey):
            key.verify(signature, data, padding.PKCS1v15(), algorithm)
        elif isinstance(key, ec.EllipticCurvePublicKey):
            key.verify(signature, data, ec.ECDSA(algorithm))
        else:
            return False
    except InvalidSignature:
        return False
    return True
