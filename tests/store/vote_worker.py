"""One of the worker processes of the concurrent vote test (tests/store/test_votes.py).

Run as ``python -m tests.store.vote_worker DATABASE_URL DATA_DIR PLAN_FILE INDEX``: it
casts its share of the plan's votes, each in its own write transaction, as fast
as it can while the other processes cast theirs on the same requests, and prints
one JSON line per vote: the request, and whether that vote reached the outcome. It
starts when the file PLAN_FILE with the suffix ``.go`` appears, so all three start
together.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from gateway.services import build_services
from gateway.store.votes import cast
from tests.conftest import make_config


def main(url: str, data_dir: str, plan_file: str, index: int) -> None:
    plan = json.loads(Path(plan_file).read_text(encoding="utf-8"))
    services = build_services(make_config(Path(data_dir), database_url=url))
    # Every worker starts voting at once, after all of them have opened the database.
    print(json.dumps({"ready": index}), flush=True)
    go = Path(plan_file).with_suffix(".go")
    while not go.exists():
        time.sleep(0.01)
    try:
        for request_id, address, voter, decision in plan["shares"][index]:
            with services.db.transaction() as session:
                done = cast(
                    session,
                    request_id,
                    address=address,
                    voter=voter,
                    decision=decision,
                    at=services.clock.now(),
                )
                reached = done.reached_now
            print(json.dumps({"request": request_id, "reached": reached}), flush=True)
    finally:
        services.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
