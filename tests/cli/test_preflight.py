"""``hfa serve`` refused at its start: one sentence, an exit status systemd tells apart, and
nothing written. Each case starts the real command as a subprocess."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gateway.cli.preflight import EXIT_CONFIG, EXIT_TEMPFAIL
from tests.cli.test_run import free_port, gateway_env

ROOT = Path(__file__).resolve().parents[2]
# Root without the capabilities that let it ignore file modes and bind low ports:
# what the service user of the units is, as far as permissions go.
WITHOUT_PRIVILEGE = [
    "setpriv",
    "--bounding-set=-dac_override,-dac_read_search,-fowner,-net_bind_service",
]


def refused(env: dict[str, str], *, prefix: tuple[str, ...] = ()) -> tuple[int, str]:
    """``hfa serve`` that must stop at once: its exit status and its one line of output."""
    done = subprocess.run(
        [*prefix, sys.executable, "-m", "gateway", "serve"],
        env=env | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    said = (done.stdout + done.stderr).strip()
    assert len(said.splitlines()) == 1, said
    assert "Traceback" not in said and "running" not in said
    return done.returncode, said


@contextmanager
def listening() -> Iterator[int]:
    """A port another process is listening on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_an_unreachable_postgresql_is_a_temporary_failure_not_a_corrupt_database(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    env = gateway_env(data_dir, free_port(), free_port()) | {
        "HFA_DATABASE_URL": f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/x",
    }
    code, said = refused(env)
    assert code == EXIT_TEMPFAIL, said
    assert "cannot reach the database" in said and "Connection refused" in said
    assert "pg_restore" not in said and "does not hold" not in said
    assert not data_dir.exists()


@pytest.mark.parametrize("setting", ["HFA_HTTP_BIND", "HFA_SMTP_BIND"])
def test_a_port_in_use_is_named_in_one_sentence_before_anything_is_written(
    tmp_path: Path, setting: str
) -> None:
    data_dir = tmp_path / "data"
    with listening() as port:
        env = gateway_env(data_dir, free_port(), free_port()) | {setting: f"127.0.0.1:{port}"}
        code, said = refused(env)
    assert code == EXIT_TEMPFAIL, said
    assert said == f"hfa: {setting} 127.0.0.1:{port} is in use by another process"
    # No audit entry (gateway.started, gateway.stopped), no generated key, no database.
    assert not data_dir.exists()


def test_a_port_in_use_leaves_an_existing_data_directory_as_it_was(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    env = gateway_env(data_dir, free_port(), free_port())
    subprocess.run(
        [sys.executable, "-m", "gateway", "db", "upgrade"], env=env, check=True, timeout=120
    )
    before = {p.name: p.read_bytes() for p in data_dir.iterdir() if p.is_file()}
    with listening() as port:
        code, said = refused(env | {"HFA_SMTP_BIND": f"127.0.0.1:{port}"})
    assert code == EXIT_TEMPFAIL, said
    after = {p.name: p.read_bytes() for p in data_dir.iterdir() if p.is_file()}
    assert after == before
    assert not {"audit.jsonl", "secret_keys", "webhook_secret", "audit_signing_key"} & set(after)


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (lambda tmp: tmp / "a-file", "is not a directory"),
        (lambda tmp: Path("/proc/nope"), "/proc/nope cannot be created (No such file"),
        (lambda tmp: tmp / "a-file" / "below", "cannot be created"),
    ],
)
def test_an_unusable_data_directory_is_a_configuration_error(
    tmp_path: Path, where: object, expected: str
) -> None:
    (tmp_path / "a-file").write_text("not a directory\n")
    data_dir = where(tmp_path)  # type: ignore[operator]
    code, said = refused(gateway_env(data_dir, free_port(), free_port()))
    assert code == EXIT_CONFIG, said
    assert said.startswith("hfa: configuration error: HFA_DATA_DIR "), said
    assert expected in said


def without_privilege() -> tuple[str, ...]:
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is needed to drop a capability")
    if os.geteuid() != 0:
        # An ordinary user has no such capability to begin with.
        return ()
    return tuple(WITHOUT_PRIVILEGE)


def test_a_data_directory_this_user_may_not_write_is_a_configuration_error(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "audit.jsonl").write_text("")
    if os.geteuid() == 0:
        os.chown(data_dir, 12345, 12345)
        data_dir.chmod(0o700)
    else:
        data_dir.chmod(0o500)
    code, said = refused(
        gateway_env(data_dir, free_port(), free_port()), prefix=without_privilege()
    )
    assert code == EXIT_CONFIG, said
    assert "may not write in it" in said and "owner uid" in said
    assert [p.name for p in data_dir.iterdir()] == ["audit.jsonl"]


def test_a_low_port_without_the_capability_is_a_configuration_error(tmp_path: Path) -> None:
    prefix = without_privilege()
    env = gateway_env(tmp_path / "data", free_port(), free_port()) | {
        "HFA_SMTP_BIND": "127.0.0.1:25"
    }
    code, said = refused(env, prefix=prefix)
    assert code == EXIT_CONFIG, said
    assert "HFA_SMTP_BIND 127.0.0.1:25" in said and "CAP_NET_BIND_SERVICE" in said
    assert not (tmp_path / "data").exists()


def test_a_malformed_setting_is_a_configuration_error_the_units_do_not_retry(
    tmp_path: Path,
) -> None:
    env = gateway_env(tmp_path / "data", free_port(), free_port()) | {"HFA_SMTP_BIND": "nonsense"}
    code, said = refused(env)
    assert code == EXIT_CONFIG, said
    assert "HFA_SMTP_BIND" in said


@pytest.mark.parametrize("unit", ["hfa-gateway.service", "hfa@.service"])
def test_the_units_retry_temporary_failures_with_backoff_and_not_configuration_errors(
    unit: str,
) -> None:
    text = (ROOT / "deploy" / "systemd" / unit).read_text()
    lines = {line.partition("=")[0]: line.partition("=")[2] for line in text.splitlines()}
    assert lines["Restart"] == "on-failure" and int(lines["RestartSec"]) >= 2
    assert lines["RestartPreventExitStatus"].split() == [str(EXIT_CONFIG)]
    # Retried for as long as the database is down, never given up after five starts.
    assert lines["StartLimitIntervalSec"] == "0"
    backoff = (ROOT / "deploy" / "systemd" / "restart-backoff.conf").read_text()
    assert "RestartSteps=10" in backoff and "RestartMaxDelaySec=60" in backoff


def test_a_lawyer_address_that_is_not_one_is_refused_in_one_sentence(tmp_path: Path) -> None:
    env = gateway_env(tmp_path / "data", free_port(), free_port()) | {"HFA_LAWYERS": "notanemail"}
    code, said = refused(env)
    assert code == EXIT_CONFIG, said
    assert said == (
        "hfa: configuration error: HFA_LAWYERS: 'notanemail' is not an email address "
        "(expected name@domain, several separated by commas)"
    )
    assert not (tmp_path / "data").exists()


def test_other_commands_also_say_the_database_is_unreachable_not_corrupt(tmp_path: Path) -> None:
    env = gateway_env(tmp_path / "data", free_port(), free_port()) | {
        "HFA_DATABASE_URL": f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/x",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-m", "gateway", "db", "upgrade"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("hfa: cannot reach the database (Connection refused)")
    assert "pg_restore" not in done.stderr
