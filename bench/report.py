"""The result table: one row per hot path, its figure beside its limit, medians of runs."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class RowSpec:
    key: str
    path: str
    unit: str
    limit: str
    target: str
    # "share": gateway/limit as a percentage; "times": gateway/limit as a multiple.
    ratio: str = "share"
    # The share of the limit's rate the target asks for (rows measured as a rate).
    share: float | None = None


ROWS: tuple[RowSpec, ...] = (
    RowSpec("submit", "1 submit POST /v1/requests", "req/s", "bare ASGI", ">= 35%", share=0.35),
    RowSpec("status", "2 status GET, 10 turns", "req/s", "bare ASGI", ">= 60%", share=0.60),
    RowSpec("peer_submit", "1p peer: awaithumans create task", "req/s", "bare ASGI", "-"),
    RowSpec("peer_status", "2p peer: awaithumans get task", "req/s", "bare ASGI", "-"),
    RowSpec("accepted", "3 inbound accepted (250)", "msg/s", "aiosmtpd sink", ">= 60%"),
    RowSpec(
        "recorded",
        "4 inbound recorded (visible)",
        "msg/s",
        "aiosmtpd sink",
        ">= 40%, p99 < 1000 ms",
        share=0.40,
    ),
    RowSpec(
        "lock_hold",
        "4w write lock held per reply recorded",
        "ms",
        "target",
        "<= 1x (3 ms)",
        "times",
    ),
    RowSpec(
        "outbound", "5 outbound outbox -> relay", "msg/s", "raw aiosmtplib", ">= 80%", share=0.80
    ),
    RowSpec("scale_status", "6 status at scale", "req/s", "status, empty db", "p99 < 10 ms"),
    RowSpec("scale_submit", "6 submit at scale", "req/s", "submit, empty db", ">= 80%"),
    RowSpec("idle_rss", "7 idle RSS", "MB", "bare uvicorn", "<= 100 MB", "times"),
    RowSpec("idle_smtp", "7 +N idle SMTP connections", "MB", "aiosmtpd sink", "< 100 MB", "times"),
    RowSpec(
        "large_message",
        "7 submit p99, large message arriving",
        "ms",
        "p99 without",
        "<= 2x",
        "times",
    ),
)


@dataclass(frozen=True)
class Figure:
    """One path's measurement in one run."""

    gateway: float
    limit: float
    p50_ms: float | None = None
    p99_ms: float | None = None
    peak_rss_mb: float | None = None
    note: str = ""
    # CPU per operation by process (``bench.cpu``): ((role, ms), ...), where measured.
    cpu_ms: tuple[tuple[str, float], ...] = ()


def _median(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def combine(figures: Sequence[Figure]) -> Figure:
    """The median of each column over the runs."""
    return Figure(
        gateway=_median([f.gateway for f in figures]) or 0.0,
        limit=_median([f.limit for f in figures]) or 0.0,
        p50_ms=_median([f.p50_ms for f in figures]),
        p99_ms=_median([f.p99_ms for f in figures]),
        peak_rss_mb=_median([f.peak_rss_mb for f in figures]),
        note=figures[-1].note if figures else "",
        cpu_ms=_median_cpu(figures),
    )


def _median_cpu(figures: Sequence[Figure]) -> tuple[tuple[str, float], ...]:
    roles = list(dict.fromkeys(role for f in figures for role, _ms in f.cpu_ms))
    return tuple(
        (role, statistics.median(ms for f in figures for r, ms in f.cpu_ms if r == role))
        for role in roles
    )


def _num(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    if abs(value) >= 100:
        text = f"{value:,.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}"
    return f"{text} {unit}".strip()


def ratio_text(spec: RowSpec, figure: Figure) -> str:
    if not figure.limit:
        return "-"
    value = figure.gateway / figure.limit
    return f"{value * 100:.0f}%" if spec.ratio == "share" else f"{value:.2f}x"


def table(results: dict[str, Figure]) -> str:
    """A Markdown table, one row per path that was measured."""
    header = (
        "path",
        "gateway",
        "limit",
        "ratio",
        "target",
        "p50 ms",
        "p99 ms",
        "peak RSS MB",
        "limit is",
    )
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    for spec in ROWS:
        figure = results.get(spec.key)
        if figure is None:
            continue
        cells = (
            spec.path,
            _num(figure.gateway, spec.unit),
            _num(figure.limit, spec.unit),
            ratio_text(spec, figure),
            spec.target,
            _num(figure.p50_ms),
            _num(figure.p99_ms),
            _num(figure.peak_rss_mb),
            spec.limit + (f" ({figure.note})" if figure.note else ""),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cpu_table(results: dict[str, Figure], cores: int) -> str:
    """Where the CPU of each operation went, beside what ``cores`` allow per operation
    at the row's target rate (empty when no row measured it)."""
    header = ("path", "CPU per operation, ms", "sum ms", "at the target, the cores allow")
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    for spec in ROWS:
        figure = results.get(spec.key)
        if figure is None or not figure.cpu_ms:
            continue
        spent = ", ".join(f"{role} {ms:.2f}" for role, ms in figure.cpu_ms)
        allowed = "-"
        if spec.share and figure.limit:
            budget = cores * 1000 / (spec.share * figure.limit)
            allowed = (
                f"{budget:.2f} ms ({cores} cores at {spec.share:.0%} of "
                f"{_num(figure.limit, spec.unit)})"
            )
        total = sum(ms for _role, ms in figure.cpu_ms)
        lines.append(f"| {spec.path} | {spent} | {total:.2f} | {allowed} |")
    return "\n".join(lines) if len(lines) > 2 else ""
