"""``hfa serve`` holds one copy of the word tables, in its reading process.

The tables a reply is read with (17 languages' phrases, the language model and
numpy under it) load with the first reply. They belong in the reading process:
read in the worker, the first reply would load a second copy into the worker for
as long as it runs. Checked on the processes a user runs, by what each has
mapped once a reply is on record.
"""

from __future__ import annotations

import resource
from pathlib import Path

from tests.e2e.servekit import file_request, send_reply, serving, wait_for_reply_on_record
from tests.mailkit import reply_to

# numpy's core extension: mapped by whichever process loaded the language model.
TABLES_MARK = "_multiarray_umath"


def _maps(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


def _command(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def _gateway_processes(data_dir: Path) -> dict[int, str]:
    """Every process running with ``data_dir`` as its HFA_DATA_DIR: pid -> command line."""
    wanted = f"HFA_DATA_DIR={data_dir}".encode()
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if wanted in (entry / "environ").read_bytes().split(b"\0"):
                found[int(entry.name)] = _command(int(entry.name))
        except OSError:
            continue
    return found


def _parent(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("PPid:"):
            return int(line.split()[1])
    return 0


def test_the_first_reply_is_read_in_the_reading_process_not_in_the_worker(
    tmp_path: Path,
) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with serving(tmp_path, soft, hard) as (base, smtp_port, _log):
        filed, email = file_request(base, tmp_path / "var")
        send_reply(smtp_port, reply_to(email, "Rejected: not as drafted."))
        wait_for_reply_on_record(base, filed, timeout=60)
        processes = _gateway_processes(tmp_path / "var")
        readers = [pid for pid, cmd in processes.items() if "gateway.inbound.reading" in cmd]
        serving_pids = [pid for pid, cmd in processes.items() if cmd.rstrip().endswith(" serve")]
        # hfa serve forks its worker: the worker is the one whose parent is the other.
        workers = [pid for pid in serving_pids if _parent(pid) in serving_pids]
        listeners = [pid for pid in serving_pids if pid not in workers]
        assert len(readers) == len(workers) == len(listeners) == 1, processes
        assert TABLES_MARK in _maps(readers[0]), "the reading process has no word tables"
        assert TABLES_MARK not in _maps(workers[0]), "the worker loaded a second copy"
        assert TABLES_MARK not in _maps(listeners[0])
