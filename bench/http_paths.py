"""Paths 1, 2 and 6: submit and status over HTTP, on an empty and on a loaded database.

The gateway runs as ``hfa serve --role http`` so that nothing but the
request path shares its core; the bare endpoint runs on the same uvicorn
stack in its own process, and both get the same load.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import httpx

from bench import bulk, cpu, mail, procs
from bench.drive import Driver
from bench.loadgen import Load
from bench.report import Figure
from gateway.store import db as store_db

STATUS_TURNS = 10
PROBE_CONNECTIONS = 2


@dataclass
class HttpFigures:
    submit: Figure
    status: Figure
    bare_idle_rss_mb: float


def _figure(gateway: Load, limit: Load, peak_rss: float, note: str = "") -> Figure:
    p50, p99 = gateway.percentiles()
    if gateway.errors or limit.errors:
        note += f"; errors: {gateway.errors} gateway, {limit.errors} limit"
    return Figure(gateway.rate, limit.rate, p50, p99, peak_rss, note)


def thread_of_ten(port: int) -> tuple[str, str]:
    """File a request and add to it until its thread has ten turns; (reference, token)."""
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        filed = client.post("/v1/requests", json=mail.SUBMIT_BODY).raise_for_status().json()
        headers = {"Authorization": f"Bearer {filed['access_token']}"}
        for n in range(STATUS_TURNS - 1):
            client.post(
                f"/v1/requests/{filed['reference']}/messages",
                json={"message": f"Follow-up {n + 1}: the supplier answered one more point."},
                headers=headers,
            ).raise_for_status()
        turns = client.get(f"/v1/requests/{filed['reference']}", headers=headers).json()["turns"]
        assert len(turns) == STATUS_TURNS, len(turns)
    return filed["reference"], filed["access_token"]


async def submit_and_status(driver: Driver, work: Path, data_dir: Path) -> HttpFigures:
    body = mail.submit_json()
    with procs.reference("http", work) as (bare, bare_port):
        bare_idle = bare.rss_mb()
        with procs.gateway(data_dir, roles=("http",), name="http") as (gw, ports):
            reference, token = thread_of_ten(ports.http)
            auth = {"Authorization": f"Bearer {token}"}
            with cpu.spent({gw.pid: "gateway"}) as submit_cpu:
                gw_submit = await driver.http(ports.http, "POST", "/v1/requests", body=body)
            bare_submit = await driver.http(bare_port, "POST", "/v1/requests", body=body)
            gw_status = await driver.http(
                ports.http, "GET", f"/v1/requests/{reference}", headers=auth
            )
            bare_status = await driver.http(
                bare_port, "GET", f"/v1/requests/{reference}", headers=auth
            )
            peak = gw.peak_rss_mb()
    return HttpFigures(
        submit=replace(
            _figure(gw_submit, bare_submit, peak, gw_submit.tool),
            cpu_ms=submit_cpu.per(gw_submit.done),
        ),
        status=_figure(gw_status, bare_status, peak, gw_status.tool),
        bare_idle_rss_mb=bare_idle,
    )


def scale_database(cache: Path, requests: int, turns: int) -> tuple[Path, bulk.Loaded]:
    """The loaded database, built once and kept in ``cache`` (keyed by size and schema)."""
    versions = Path(store_db.__file__).with_name("migrations") / "versions"
    schema = hashlib.sha256()
    for migration in sorted(versions.glob("*.py")):
        schema.update(migration.read_bytes())
    path = cache / f"scale-{requests}-{turns}-{schema.hexdigest()[:12]}.db"
    loaded = bulk.Loaded(requests, turns, special=1, special_turns=STATUS_TURNS, seed="s1")
    if path.exists():
        return path, loaded
    for stale in cache.glob("scale-*.db*"):
        stale.unlink()
    building = path.with_suffix(".building")
    building.unlink(missing_ok=True)
    loaded = bulk.load(building, requests=requests, turns=turns, special_turns=STATUS_TURNS)
    building.rename(path)
    return path, loaded


async def at_scale(
    driver: Driver, data_dir: Path, loaded: bulk.Loaded, empty: HttpFigures
) -> tuple[Figure, Figure]:
    """Status of the ten-turn thread and submit, with the bulk-loaded rows in place."""
    body = mail.submit_json()
    with procs.gateway(data_dir, roles=("http",), name="scale") as (gw, ports):
        gw.reset_peak()
        auth = {"Authorization": f"Bearer {loaded.access_token(loaded.special)}"}
        path = f"/v1/requests/HFA-{loaded.special:05d}"
        status = await driver.http(ports.http, "GET", path, headers=auth)
        # Latency at a moderate load (a few agents at once), apart from the saturating
        # run above, whose percentiles are mostly time spent queueing.
        probe = await driver.http(
            ports.http, "GET", path, headers=auth, connections=PROBE_CONNECTIONS
        )
        submit = await driver.http(ports.http, "POST", "/v1/requests", body=body)
        peak = gw.peak_rss_mb()
    note = f"{loaded.requests:,} requests, {loaded.turns:,} turns"
    s50, s99 = probe.percentiles()
    u50, u99 = submit.percentiles()
    probed = f"{note}; p50/p99 with {PROBE_CONNECTIONS} connections"
    return (
        Figure(status.rate, empty.status.gateway, s50, s99, peak, probed),
        Figure(submit.rate, empty.submit.gateway, u50, u99, peak, note),
    )


def copy_database(source: Path, data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, data_dir / "gateway.db")
