"""A real RFC 3161 time-stamping authority on loopback: ``openssl ts -reply`` behind HTTP.

A CA and a TSA certificate (extendedKeyUsage timeStamping, critical) are made
with openssl in a temporary directory; each POSTed query is answered by
``openssl ts -reply`` with them, as a TSA's front end does.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CONFIG = """
[ tsa ]
default_tsa = tsa_config1

[ tsa_config1 ]
dir = {dir}
serial = $dir/tsaserial
crypto_device = builtin
signer_cert = $dir/tsa.crt
certs = $dir/ca.crt
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
other_policies = 1.2.3.4.5
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
"""


def _openssl(directory: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True, timeout=60)


def make_tsa(directory: Path) -> Path:
    """A CA, a TSA key and certificate signed by it, and the ``openssl ts`` config."""
    directory.mkdir(parents=True, exist_ok=True)
    _openssl(
        directory,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "2",
        "-subj",
        "/CN=Test Timestamp CA",
    )
    _openssl(
        directory,
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "tsa.key",
        "-out",
        "tsa.csr",
        "-subj",
        "/CN=Test TSA/O=Loopback Time",
    )
    (directory / "ext.cnf").write_text("extendedKeyUsage = critical,timeStamping\n")
    _openssl(
        directory,
        "x509",
        "-req",
        "-in",
        "tsa.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "tsa.crt",
        "-days",
        "2",
        "-extfile",
        "ext.cnf",
    )
    (directory / "tsaserial").write_text("01\n")
    config = directory / "tsa.cnf"
    config.write_text(CONFIG.format(dir=directory))
    return config


@contextmanager
def running_tsa(directory: Path) -> Iterator[str]:
    """The TSA's URL, answering until the block ends."""
    config = make_tsa(directory)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            query = self.rfile.read(int(self.headers["Content-Length"]))
            with lock:
                (directory / "query.tsq").write_bytes(query)
                _openssl(
                    directory,
                    "ts",
                    "-reply",
                    "-config",
                    str(config),
                    "-queryfile",
                    "query.tsq",
                    "-out",
                    "reply.tsr",
                )
                answer = (directory / "reply.tsr").read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "application/timestamp-reply")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/tsa"
    finally:
        server.shutdown()
        server.server_close()
