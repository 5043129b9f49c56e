"""The container recipe keeps what it must: every place that holds mail or data is a volume,
and the image carries what the documented backup runs."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import yaml

ROOT = Path(__file__).resolve().parents[2]
CONTAINER = ROOT / "deploy" / "container"
# Debian's Postfix keeps its queue here unless main.cf says otherwise.
POSTFIX_DEFAULT_QUEUE = "/var/spool/postfix"


def _compose() -> dict[str, object]:
    loaded = yaml.safe_load((CONTAINER / "compose.yaml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def _mounted(service: dict[str, object]) -> set[PurePosixPath]:
    volumes = service.get("volumes") or []
    assert isinstance(volumes, list)
    return {PurePosixPath(str(v).split(":")[1]) for v in volumes}


def _covered(path: str, mounts: set[PurePosixPath]) -> bool:
    wanted = PurePosixPath(path)
    return any(wanted == m or m in wanted.parents for m in mounts)


def _image_env(containerfile: Path) -> dict[str, str]:
    """The ENV of the image's final stage."""
    final = containerfile.read_text().split("\nFROM ")[-1]
    env: dict[str, str] = {}
    for block in re.findall(r"^ENV (.+?)(?<!\\)$", final, re.MULTILINE | re.DOTALL):
        for name, value in re.findall(r"(\w+)=(\S+)", block.replace("\\\n", " ")):
            env[name] = value
    return env


def _postfix_queue_directory() -> str:
    """Where the Postfix container queues mail: its setup may move it, else the default."""
    setup = (CONTAINER / "postfix" / "entrypoint.sh").read_text()
    setup += (ROOT / "deploy" / "postfix" / "setup.sh").read_text()
    moved = re.search(r"queue_directory\s*=\s*(\S+?)[\"'\s]", setup)
    if moved:
        return moved.group(1)
    postconf = shutil.which("postconf")
    if postconf:
        ran = subprocess.run(
            [postconf, "-d", "-h", "queue_directory"], capture_output=True, text=True, check=False
        )
        if ran.returncode == 0 and ran.stdout.strip():
            return ran.stdout.strip()
    return POSTFIX_DEFAULT_QUEUE


def test_every_path_that_holds_mail_or_data_is_on_a_volume() -> None:
    services = _compose()["services"]
    assert isinstance(services, dict)
    data_dir = _image_env(CONTAINER / "Containerfile")["HFA_DATA_DIR"]
    for role in ("http", "smtp", "worker", "db-upgrade"):
        # The database (SQLite), audit mirror, keys and Maildir all live in the data dir.
        assert _covered(data_dir, _mounted(services[role])), role
    assert _covered(_postfix_queue_directory(), _mounted(services["postfix"]))
    assert _covered("/var/lib/postgresql/data", _mounted(services["postgres"]))
    volumes = _compose()["volumes"]
    assert isinstance(volumes, dict)
    declared = set(volumes)
    for service in services.values():
        for volume in service.get("volumes") or []:
            assert str(volume).split(":")[0] in declared, volume


def test_the_image_has_pg_dump_of_the_servers_major_version() -> None:
    """`hfa backup` on PostgreSQL runs pg_dump, which refuses a newer server than itself."""
    containerfile = (CONTAINER / "Containerfile").read_text()
    final = containerfile.split("\nFROM ")[-1]
    server = _compose()["services"]["postgres"]["image"]  # type: ignore[index]
    server_major = re.fullmatch(r"postgres:(\d+)(?:[.-].*)?", server)
    assert server_major, server
    client_major = re.search(r"^ARG PG_MAJOR=(\d+)$", final, re.MULTILINE)
    assert client_major and client_major.group(1) == server_major.group(1)
    assert '"postgresql-client-$PG_MAJOR"' in final
    # The backups go where the documented command writes them, on a volume of their own.
    assert _covered("/var/backups/hfa", _mounted(_compose()["services"]["worker"]))  # type: ignore[index]


def test_each_health_check_checks_its_own_containers_process() -> None:
    services = _compose()["services"]
    assert isinstance(services, dict)
    for role in ("smtp", "worker"):
        test = services[role]["healthcheck"]["test"]
        assert test[:4] == ["CMD", "hfa", "health", "--role"] and test[4] == role
        assert "--here" in test, role
    # The http role answers for itself on its own loopback.
    assert "127.0.0.1:8080/readyz" in " ".join(services["http"]["healthcheck"]["test"])
