"""The files in deploy/ are what an operator installs: each one is checked as its tool reads it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from gateway.settings.config import load_config, read_config_file

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNITS = DEPLOY / "systemd"
HARDENING = {
    "User": "hfa",
    "UMask": "0077",
    "StateDirectory": "hfa",
    "ProtectSystem": "strict",
    "NoNewPrivileges": "yes",
    "PrivateTmp": "yes",
    "CapabilityBoundingSet": "",
}


def unit_settings(path: Path) -> dict[str, str]:
    settings: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            settings[key.strip()] = value.strip()
    return settings


def test_every_service_unit_is_hardened() -> None:
    services = sorted(UNITS.glob("*.service"))
    assert {p.name for p in services} >= {"hfa@.service", "hfa-gateway.service"}
    for path in services:
        settings = unit_settings(path)
        for key, value in HARDENING.items():
            assert settings.get(key) == value, f"{path.name}: {key}={settings.get(key)!r}"
    assert "--role %i" in unit_settings(UNITS / "hfa@.service")["ExecStart"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not found")
def test_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    hfa = shutil.which("hfa")
    if hfa is None:
        pytest.skip("the hfa command is not installed (pip install -e .)")
    # The units name /opt/hfa/venv/bin/hfa; verify checks the binary exists, so point it here.
    for path in UNITS.iterdir():
        (tmp_path / path.name).write_text(path.read_text().replace("/opt/hfa/venv/bin/hfa", hfa))
    names = ["hfa-gateway.service", "hfa-db-upgrade.service", "hfa.target"]
    names += [f"hfa@{role}.service" for role in ("http", "smtp", "worker")]
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *(str(tmp_path / n) for n in names)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


def test_example_config_is_valid_and_binds_to_loopback() -> None:
    config = load_config(env={}, file_values=read_config_file(DEPLOY / "hfa.toml.example"))
    assert config.http_host == "127.0.0.1" and config.smtp_host == "127.0.0.1"
    assert config.smtp_relay == ("127.0.0.1", 10587)  # the submission service of setup.sh


def _postconf_available() -> bool:
    return shutil.which("postconf") is not None and shutil.which("postmap") is not None


def _fresh_postfix_config(directory: Path) -> Path:
    proto = Path("/etc/postfix/master.cf.proto")
    if not proto.is_file():
        pytest.skip("/etc/postfix/master.cf.proto is missing")
    directory.mkdir()
    shutil.copy(proto, directory / "master.cf")
    # myhostname given: computing its default can wait on DNS.
    (directory / "main.cf").write_text("compatibility_level = 3.6\nmyhostname = mx.example.com\n")
    return directory


def _setup(config_dir: Path, *args: str) -> None:
    subprocess.run(
        ["sh", str(DEPLOY / "postfix" / "setup.sh"), "-c", str(config_dir), *args],
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.mark.skipif(not _postconf_available(), reason="Postfix is not installed")
def test_setup_script_writes_exactly_the_documented_snippets(tmp_path: Path) -> None:
    config_dir = _fresh_postfix_config(tmp_path / "etc")
    _setup(config_dir, "--reply-domain", "reply.example.com")
    written = subprocess.run(
        ["postconf", "-c", str(config_dir), "-n"], capture_output=True, text=True, check=True
    ).stdout
    documented = [
        line
        for line in (DEPLOY / "postfix" / "main.cf").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    for line in documented:
        assert line in written.splitlines(), f"setup.sh does not write: {line}"
    services = subprocess.run(
        ["postconf", "-c", str(config_dir), "-M"], capture_output=True, text=True, check=True
    ).stdout
    snippet = (DEPLOY / "postfix" / "master.cf").read_text()
    for entry in re.split(r"\n(?=\S)", snippet):
        lines = [line for line in entry.splitlines() if line and not line.startswith("#")]
        if lines:
            flat = " ".join(" ".join(line.split()) for line in lines)
            assert flat in {" ".join(s.split()) for s in services.splitlines()}, flat

    # Run again (as after an upgrade): nothing is added twice.
    _setup(config_dir, "--reply-domain", "reply.example.com")
    again = subprocess.run(
        ["postconf", "-c", str(config_dir), "-n"], capture_output=True, text=True, check=True
    ).stdout
    assert again == written


@pytest.mark.skipif(not _postconf_available(), reason="Postfix is not installed")
def test_setup_script_keeps_the_sites_own_restrictions(tmp_path: Path) -> None:
    config_dir = _fresh_postfix_config(tmp_path / "etc")
    (config_dir / "main.cf").write_text(
        "compatibility_level = 3.6\nmyhostname = mx.example.com\n"
        "relay_domains = lists.example.com\n"
        "smtpd_recipient_restrictions = permit_mynetworks, reject_unauth_destination\n"
    )
    _setup(config_dir, "--reply-domain", "reply.example.com", "--max-message-bytes", "40000000")
    values = dict(
        line.split(" = ", 1)
        for line in subprocess.run(
            ["postconf", "-c", str(config_dir), "-n"], capture_output=True, text=True, check=True
        ).stdout.splitlines()
    )
    assert values["relay_domains"] == "lists.example.com, reply.example.com"
    # The check comes before any permit, so mail from mynetworks is verified too.
    assert values["smtpd_recipient_restrictions"].startswith("check_recipient_access ")
    assert values["smtpd_recipient_restrictions"].endswith("reject_unauth_destination")
    assert values["message_size_limit"] == str(40_000_000 - 65_536)


def test_compose_file_has_every_role_postgres_and_postfix() -> None:
    compose = yaml.safe_load((DEPLOY / "container" / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "db-upgrade", "http", "smtp", "worker", "postfix"}
    for role in ("http", "smtp", "worker"):
        assert services[role]["command"] == ["serve", "--role", role]
        assert services[role]["depends_on"]["db-upgrade"]["condition"] == (
            "service_completed_successfully"
        )
        # Every role reads the same secrets: reply-token keys must match across processes.
        assert "secrets.env" in services[role]["env_file"]
    assert services["http"]["ports"] == ["127.0.0.1:8080:8080"]
    assert "ports" not in services["smtp"]  # only Postfix talks to the gateway's listener
    assert services["worker"]["environment"]["HFA_SMTP_RELAY"] == "postfix:10587"
    for name in ("Containerfile", "postfix/Containerfile"):
        assert (DEPLOY / "container" / name).is_file()


def _builder() -> list[str] | None:
    for tool in ("podman", "buildah", "docker"):
        if shutil.which(tool) is None:
            continue
        probe = [tool, "info"] if tool != "buildah" else [tool, "version"]
        ran = subprocess.run(probe, capture_output=True, timeout=30, check=False)
        if ran.returncode == 0:
            return [tool, "build"] if tool != "buildah" else [tool, "bud"]
    return None


@pytest.mark.slow
def test_container_image_builds() -> None:
    builder = _builder()
    if builder is None:
        pytest.skip("no working container builder (podman, buildah or a running docker daemon)")
    result = subprocess.run(
        [*builder, "-f", "deploy/container/Containerfile", "-t", "hfa-gateway:test", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_the_images_build_stage_has_every_file_the_wheel_needs(tmp_path: Path) -> None:
    """Without a builder: the Containerfile's COPY set alone builds a complete wheel."""
    source = tmp_path / "src"
    source.mkdir()
    build_stage = (DEPLOY / "container" / "Containerfile").read_text().split("\nFROM ")[1]
    for line in build_stage.splitlines():
        if line.startswith("COPY ") and "--from" not in line:
            *sources, target = line.split()[1:]
            for name in sources:
                where = (
                    source / target / Path(name).name if target.endswith("/") else source / target
                )
                if (ROOT / name).is_dir():
                    shutil.copytree(
                        ROOT / name, where, ignore=shutil.ignore_patterns("__pycache__")
                    )
                else:
                    where.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(ROOT / name, where)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "out"),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (wheel,) = (tmp_path / "out").glob("hfa_gateway-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "gateway/outbound/dkim.py",
        "gateway/cli/backup.py",
        "gateway/store/migrations/env.py",
    ):
        assert needed in names, needed
    assert any(n.startswith("gateway/_templates/email/") for n in names)
