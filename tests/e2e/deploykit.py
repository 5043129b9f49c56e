"""Keys and certificates for the deployment tests, made with ``cryptography``."""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
from collections.abc import Callable
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

SELECTOR = "hfa2026"


def write_dkim_key(directory: Path) -> tuple[Path, bytes]:
    """A fresh 2048-bit RSA key as the gateway reads it, and its DNS TXT record."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = directory / f"{SELECTOR}.key"
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,  # as dkimpy's dknewkey writes it
            serialization.NoEncryption(),
        )
    )
    path.chmod(0o600)
    public = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return path, b"v=DKIM1; k=rsa; p=" + base64.b64encode(public)


def dns_for(domain: str, record: bytes) -> Callable[..., bytes]:
    """A dnsfunc for dkimpy that answers SELECTOR._domainkey.DOMAIN with ``record``."""
    wanted = f"{SELECTOR}._domainkey.{domain}.".encode()

    def lookup(name: bytes, timeout: int = 5) -> bytes:
        return record if name.rstrip(b".") + b"." == wanted else b""

    return lookup


def write_certificate(directory: Path, name: str = "localhost") -> tuple[Path, Path]:
    """A self-signed certificate for ``name`` and 127.0.0.1: (cert file, key file)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(name), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / f"{name}.crt", directory / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path
