"""``hfa backup DIR`` and ``hfa restore DIR``: the database, the audit mirror and the keys, as one.

The copy is taken at one moment: the database is copied as a snapshot (SQLite's
online backup API; ``pg_dump --snapshot`` for PostgreSQL), the audit head is
newest signed checkpoint is read from that same snapshot (and saved beside it,
for ``hfa audit verify --checkpoint``), and the JSON-lines mirror is copied up
to that checkpoint's size and no further. So ``hfa audit verify`` on a restored copy checks the
mirror against exactly the database it came with. The reply-token keys and the
webhook secret go along: without them every reply address in flight is refused;
so does the audit log's signing key.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, make_url, text
from sqlalchemy.exc import SQLAlchemyError

from gateway import __version__
from gateway.cli.common import config_from
from gateway.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail
from gateway.settings.config import Config
from gateway.store.mirror import leaf_index_of

MANIFEST = "backup.json"
SQLITE_FILE = "gateway.db"
PG_DUMP_FILE = "gateway.pgdump"
MIRROR = "audit.jsonl"
KEY_FILES = ("secret_keys", "webhook_secret", "audit_signing_key")
CHECKPOINT_FILE = "audit_checkpoint.txt"
MIRROR_WAIT_SECONDS = 5.0


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _sqlite_path(config: Config) -> Path | None:
    url = make_url(config.database_url)
    return Path(url.database or "") if url.get_backend_name() == "sqlite" else None


def _head_and_revision(conn: Any) -> tuple[int, str, str]:
    """The newest checkpoint's size and signed note, and the schema revision."""
    head = conn.execute(
        "SELECT tree_size, note FROM audit_checkpoints ORDER BY tree_size DESC LIMIT 1"
    ).fetchone()
    revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    size, note = (int(head[0]), str(head[1])) if head else (0, "")
    return size, note, str(revision[0]) if revision else ""


def _backup_sqlite(source: Path, dest: Path) -> tuple[int, str, str]:
    # Online backup: a consistent copy while the gateway keeps writing.
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(dest / SQLITE_FILE)
    try:
        src.backup(dst)
        return _head_and_revision(dst)
    finally:
        dst.close()
        src.close()


def _backup_postgres(url: str, dest: Path) -> tuple[int, str, str]:
    """pg_dump of the snapshot in which the audit head is read, so both agree."""
    pg_dump = shutil.which("pg_dump")
    if pg_dump is None:
        raise FileNotFoundError("pg_dump is not on PATH (Debian: postgresql-client)")
    engine = create_engine(url, isolation_level="REPEATABLE READ")
    parsed = make_url(url)
    # The password goes through the environment, never the command line others can read.
    env = dict(os.environ)
    if parsed.password:
        env["PGPASSWORD"] = str(parsed.password)
    libpq_url = parsed.set(drivername="postgresql", password=None).render_as_string()
    try:
        with engine.connect() as conn:
            snapshot = conn.execute(text("SELECT pg_export_snapshot()")).scalar_one()
            seq, note, revision = _head_and_revision(_Exec(conn))
            # The snapshot lives as long as this transaction: pg_dump runs inside it.
            subprocess.run(  # noqa: S603 (our own arguments; the URL is the operator's setting)
                [
                    pg_dump,
                    "--format=custom",
                    "--no-owner",
                    f"--snapshot={snapshot}",
                    f"--file={dest / PG_DUMP_FILE}",
                    libpq_url,
                ],
                check=True,
                capture_output=True,
                text=True,
                env=env,
            )
    finally:
        engine.dispose()
    return seq, note, revision


class _Exec:
    """sqlite3's ``execute(sql).fetchone()`` over a SQLAlchemy connection."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str) -> Any:
        return self.conn.execute(text(sql))


def _copy_lines(source: Path, target: Path, head_seq: int) -> tuple[int, int]:
    """Stream the mirror's lines of the first ``head_seq`` leaves into ``target``: (lines, leaves seen)."""
    kept = seen = 0
    with source.open("rb") as src, target.open("wb") as out:
        for line in src:
            if not line.endswith(b"\n"):
                break  # still being appended: not part of the copy
            try:
                index = leaf_index_of(json.loads(line))
            except ValueError:
                index = None  # kept as found: verify will name it
            if index is not None:
                seen = max(seen, index + 1)
                if index >= head_seq:
                    continue
            out.write(line)
            kept += 1
    return kept, seen


def _copy_mirror(source: Path, dest: Path, head_seq: int) -> tuple[int, bool]:
    """Copy the mirror up to ``head_seq``; waits briefly for entries not written yet."""
    if not source.is_file():
        # An empty mirror still goes in, under its hash: a line added later is refused.
        (dest / MIRROR).touch()
        return 0, True
    deadline = time.monotonic() + MIRROR_WAIT_SECONDS
    while True:
        kept, seen = _copy_lines(source, dest / MIRROR, head_seq)
        if seen >= head_seq or time.monotonic() > deadline:
            return kept, seen >= head_seq
        time.sleep(0.1)  # the mirror is written just after each batch


def cmd_backup(args: argparse.Namespace) -> int:
    config = config_from(args)
    dest = Path(args.directory)
    if dest.exists() and any(dest.iterdir()):
        return fail(f"{dest} is not empty: back up into a new directory", EXIT_USAGE)
    sqlite_path = _sqlite_path(config)
    if sqlite_path is not None and not sqlite_path.is_file():
        return fail(f"no database at {sqlite_path}: nothing to back up", EXIT_USAGE)
    # The directory is 0700 from the start, so its files are never readable by others, and
    # each file is made 0600 too (not by umask: that would change it for the whole process).
    dest.mkdir(mode=0o700, parents=True, exist_ok=True)
    dest.chmod(0o700)
    try:
        if sqlite_path is not None:
            seq, note, revision = _backup_sqlite(sqlite_path, dest)
        else:
            seq, note, revision = _backup_postgres(config.database_url, dest)
    except (OSError, sqlite3.Error, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        return fail(f"backup failed, {dest} is incomplete: {detail.strip()}", EXIT_FAILED)
    if note:
        (dest / CHECKPOINT_FILE).write_text(note, encoding="utf-8")
    lines, caught_up = _copy_mirror(config.data_dir / MIRROR, dest, seq)
    for name in KEY_FILES:
        if (config.data_dir / name).is_file():
            shutil.copy2(config.data_dir / name, dest / name)
    for path in dest.iterdir():
        path.chmod(0o600)
    files = {p.name: _sha256(p) for p in sorted(dest.iterdir())}
    manifest = {
        "format": 1,
        "gateway_version": __version__,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "database": "sqlite" if sqlite_path is not None else "postgresql",
        "schema_revision": revision,
        "audit_tree_size": seq,
        "mirror_lines": lines,
        "files": files,
    }
    (dest / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    (dest / MANIFEST).chmod(0o600)
    print(f"backup in {dest}: audit tree size {seq}, schema {revision}, {lines} mirror lines")
    if not caught_up and (config.data_dir / MIRROR).is_file():
        print("warning: the mirror lacks entries the database has; verify will say which")
    for name in KEY_FILES:
        if name not in files:
            print(f"note: no {name} file; keep HFA_{name.upper()} from the environment with it")
    return EXIT_OK


def _not_loaded(url: str, manifest: dict[str, Any], source: Path) -> str | None:
    """Why the PostgreSQL database does not hold this backup's dump yet (None: it does).

    The files restored next to a database must be the ones dumped with it: restored
    beside an empty database they would describe an audit tree that is not there.
    """
    shown = make_url(url).render_as_string(hide_password=True)
    load = (
        f"load the dump into it first (pg_restore --no-owner --dbname=<that database> "
        f"{source / PG_DUMP_FILE}), then run 'hfa restore' again"
    )
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            seq, _digest, _revision = _head_and_revision(_Exec(conn))
    except SQLAlchemyError:
        return f"the database at {shown} does not hold this backup (it is empty or another one): {load}"
    finally:
        engine.dispose()
    size = int(manifest.get("audit_tree_size") or 0)
    if seq < size:
        return (
            f"the database at {shown} has an audit tree of {seq} entries, fewer than this "
            f"backup's {size}: it is not the database of this backup; {load}"
        )
    return None


def cmd_restore(args: argparse.Namespace) -> int:
    config = config_from(args)
    source = Path(args.directory)
    try:
        manifest = json.loads((source / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return fail(f"{source} is not a backup made by 'hfa backup': {exc}", EXIT_USAGE)
    for name, digest in manifest["files"].items():
        if not (source / name).is_file() or _sha256(source / name) != digest:
            return fail(f"{source / name} is missing or changed since the backup", EXIT_FAILED)
    target = config.data_dir
    clash = [n for n in manifest["files"] if n != PG_DUMP_FILE and (target / n).exists()]
    if clash:
        return fail(
            f"{target} already holds {', '.join(clash)}: restore into a fresh one", EXIT_USAGE
        )
    sqlite_path = _sqlite_path(config)
    if manifest["database"] == "sqlite" and sqlite_path != target / SQLITE_FILE:
        return fail("this is a SQLite backup: restore it with HFA_DATABASE_URL unset", EXIT_USAGE)
    if manifest["database"] == "postgresql":
        problem = _not_loaded(config.database_url, manifest, source)
        if problem:
            return fail(problem, EXIT_USAGE)
    target.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name in manifest["files"]:
        if name != PG_DUMP_FILE:
            shutil.copy2(source / name, target / name)
            (target / name).chmod(0o600)
    print(f"restored into {target}: audit tree size {manifest['audit_tree_size']}")
    if manifest["database"] == "postgresql":
        print(
            f"now load the database into an empty one, then check:\n"
            f"  pg_restore --no-owner --dbname=<empty database> {source / PG_DUMP_FILE}\n"
            f"  hfa audit verify --checkpoint {source / CHECKPOINT_FILE}",
            file=sys.stderr,
        )
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("backup", help="copy database, audit mirror and keys, consistently")
    p.add_argument("directory", help="a new or empty directory for the backup")
    p.set_defaults(handler=cmd_backup)
    r = sub.add_parser("restore", help="restore a backup into a fresh HFA_DATA_DIR")
    r.add_argument("directory", help="a directory written by 'hfa backup'")
    r.set_defaults(handler=cmd_restore)
