"""One inbound worker process of the concurrent approvals test (test_approvals_workers).

Run as ``python -m tests.inbound.reply_worker DATABASE_URL DATA_DIR SETTINGS_JSON GO_FILE``:
once GO_FILE exists it claims and records stored replies with the gateway's own
worker code (``claim_pending`` and ``process_batch``, a few at a time so the
processes interleave) until none is left to claim, then exits.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from gateway.inbound.claims import claim_pending
from gateway.inbound.worker import process_batch
from gateway.services import build_services
from tests.conftest import make_config


def main(url: str, data_dir: str, settings: str, go_file: str) -> None:
    overrides = json.loads(settings)
    services = build_services(make_config(Path(data_dir), database_url=url, **overrides))
    print("ready", flush=True)
    while not Path(go_file).exists():
        time.sleep(0.01)
    idle = 0
    try:
        while idle < 20:
            ids = claim_pending(services, limit=2)
            if not ids:
                idle += 1
                time.sleep(0.05)
                continue
            idle = 0
            for outcome in process_batch(services, ids):
                print(outcome, flush=True)
            # A breath between batches: on a busy machine a process that never pauses
            # can record every reply before the others are scheduled at all.
            time.sleep(0.02)
    finally:
        services.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4])
