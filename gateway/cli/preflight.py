"""What ``hfa serve`` checks before it writes anything: one sentence and an exit status each.

The checks run before the schema is migrated, keys are generated or an audit entry is
written, so a refused start leaves the data directory as it found it. Each refusal is
one sentence on stderr and an exit status a supervisor can act on (``sysexits.h``):

- ``EXIT_TEMPFAIL`` (75): what is missing may come back by itself (the database server
  is down or starting, a port is still held by a process that is stopping). systemd
  retries it with a growing delay.
- ``EXIT_CONFIG`` (78): a setting, a directory or a permission is wrong; retrying
  cannot help, and the units do not (``RestartPreventExitStatus=78``).
"""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

from gateway.errors import ConfigError, GatewayError, Unavailable
from gateway.settings.config import Config
from gateway.store.direct import is_sqlite, shown_url

EXIT_TEMPFAIL = 75
EXIT_CONFIG = 78
# Refusals from the server itself that pass on their own (a restart, a full server).
_TRANSIENT_REFUSALS = (
    "starting up",
    "shutting down",
    "in recovery mode",
    "too many clients",
    "too many connections",
    "remaining connection slots",
)
# What the gateway itself keeps in its data directory and must be able to rewrite.
DATA_FILES = (
    "gateway.db",
    "gateway.db-wal",
    "gateway.db-shm",
    "audit.jsonl",
    "secret_keys",
    "secret_keys.next",
    "webhook_secret",
    "audit_signing_key",
    "maildir",
)
DATABASE_SECONDS = 5


def check(config: Config, roles: tuple[str, ...]) -> None:
    """Refuse to start, in one sentence, unless the gateway can run; writes nothing
    unless every check passes (then it creates the data directory, if missing)."""
    data_dir = config.data_dir
    _check_data_dir(data_dir)
    if "http" in roles:
        check_bind("HFA_HTTP_BIND", config.http_host, config.http_port)
    if "smtp" in roles:
        check_bind("HFA_SMTP_BIND", config.smtp_host, config.smtp_port)
    check_database(config.database_url)
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"HFA_DATA_DIR {data_dir} cannot be created ({exc.strerror or exc})"
        ) from None


def _check_data_dir(data_dir: Path) -> None:
    if data_dir.exists() and not data_dir.is_dir():
        raise ConfigError(f"HFA_DATA_DIR {data_dir} is not a directory")
    if not data_dir.exists():
        parent = _nearest_existing(data_dir)
        if not parent.is_dir():
            raise ConfigError(
                f"HFA_DATA_DIR {data_dir} cannot be created: {parent} is not a directory"
            )
        if not os.access(parent, os.W_OK | os.X_OK):
            raise ConfigError(
                f"HFA_DATA_DIR {data_dir} cannot be created: {_who()} may not write in "
                f"{parent} ({_owner(parent)}); create it and give it to this user"
            )
        return
    if not os.access(data_dir, os.R_OK | os.W_OK | os.X_OK):
        raise ConfigError(
            f"HFA_DATA_DIR {data_dir}: {_who()} may not write in it ({_owner(data_dir)}); "
            "give it to the user the gateway runs as"
        )
    for name in DATA_FILES:
        path = data_dir / name
        mode = os.R_OK | os.W_OK | (os.X_OK if path.is_dir() else 0)
        if path.exists() and not os.access(path, mode):
            raise ConfigError(
                f"HFA_DATA_DIR {data_dir}: {_who()} may not read and write {path} "
                f"({_owner(path)}); give it to the user the gateway runs as"
            )


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path("/")


def _who() -> str:
    return f"this user (uid {os.geteuid()})"


def _owner(path: Path) -> str:
    info = path.stat()
    return f"owner uid {info.st_uid}, mode {info.st_mode & 0o7777:04o}"


def check_bind(setting: str, host: str, port: int) -> None:
    """Whether ``host:port`` can be listened on now; a free port (0) always can."""
    if port == 0:
        return
    where = f"{setting} {host}:{port}"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        # As the listener itself binds: a port left in TIME_WAIT is free.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except socket.gaierror as exc:
            raise ConfigError(f"{where}: no such address ({exc.strerror})") from None
        except OSError as exc:
            raise _bind_refusal(where, port, exc) from None


def _bind_refusal(where: str, port: int, exc: OSError) -> GatewayError:
    if exc.errno == errno.EADDRINUSE:
        return Unavailable(f"{where} is in use by another process")
    if exc.errno == errno.EACCES:
        low = " below 1024 (grant it CAP_NET_BIND_SERVICE, or use a higher port)"
        return ConfigError(
            f"{where}: {_who()} may not listen on this port{low if port < 1024 else ''}"
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return ConfigError(f"{where}: no network interface of this machine has this address")
    return ConfigError(f"{where} cannot be listened on ({exc.strerror or exc})")


def check_database(url: str) -> None:
    """Whether the database server answers and lets the gateway in (PostgreSQL; the
    SQLite file lives in a directory checked with the data directory)."""
    if is_sqlite(url):
        _check_sqlite_dir(url)
        return
    import psycopg  # only a PostgreSQL gateway loads its driver

    scheme, _, rest = url.partition("://")
    libpq = "postgresql://" + rest if scheme.startswith("postgres") else url
    try:
        with psycopg.connect(libpq, connect_timeout=DATABASE_SECONDS) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        raise database_refusal(exc, url) from None


def _check_sqlite_dir(url: str) -> None:
    path = url.removeprefix("sqlite:///")
    if path in ("", ":memory:") or path.startswith("file:"):
        return
    folder = _nearest_existing(Path(path).parent)
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"HFA_DATABASE_URL: {_who()} may not write the database file {path}")


def is_connection_failure(exc: BaseException) -> bool:
    """Whether a database error says the server could not be reached (not what it holds)."""
    cause = getattr(exc, "orig", None) or exc
    text = str(cause)
    return type(cause).__name__ == "OperationalError" and (
        "connection failed" in text
        or "could not connect" in text
        or "failed to resolve host" in text
        or "server closed the connection" in text
        or "connection timeout" in text
    )


def database_refusal(exc: BaseException, url: str | None = None) -> GatewayError:
    """One sentence for a database server that is down or refuses the gateway.

    Down, unreachable or starting: ``Unavailable`` (try again later). The server
    answered and refused (no such database or role, a wrong password): ``ConfigError``.
    """
    cause = getattr(exc, "orig", None) or exc
    first = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
    said = first.rpartition(" failed: ")[2] if " failed: " in first else first
    said = said.removeprefix("FATAL:").strip()
    where = f" at {shown_url(url)}" if url else ""
    if "FATAL:" in first and not any(word in first for word in _TRANSIENT_REFUSALS):
        return ConfigError(
            f"the database server{where} refused the gateway ({said}): correct "
            "HFA_DATABASE_URL or the database's users"
        )
    return Unavailable(
        f"cannot reach the database{where} ({said}); nothing was written: start the "
        "database server or correct HFA_DATABASE_URL"
    )


def exit_status(refusal: GatewayError) -> int:
    return EXIT_TEMPFAIL if isinstance(refusal, Unavailable) else EXIT_CONFIG


def from_the_database(exc: BaseException) -> bool:
    return any(
        klass.__module__.startswith(("sqlalchemy.", "psycopg")) for klass in type(exc).__mro__
    )
