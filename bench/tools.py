"""The real load tools, when installed: wrk for HTTP and Postfix's smtp-source for SMTP.

Each wrapper returns the same :class:`Load` as the built-in generators, so a
path does not care which one drove it. Both tools are bounded: wrk by its
duration, smtp-source by its message count, and both by a subprocess timeout.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench.loadgen import Load

_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def have_wrk() -> bool:
    return shutil.which("wrk") is not None


def have_smtp_source() -> bool:
    return smtp_source_path() is not None


def smtp_source_path() -> str | None:
    found = shutil.which("smtp-source")
    if found is None and Path("/usr/sbin/smtp-source").exists():
        found = "/usr/sbin/smtp-source"
    return found


def _lua_string(text: str) -> str:
    level = "=" * 3
    while f"]{level}]" in text:
        level += "="
    return f"[{level}[{text}]{level}]"


# In a body, replaced by a counter: every request wrk sends is then a different one.
UNIQUE = "{{n}}"


def wrk_script(method: str, body: str, headers: dict[str, str]) -> str:
    lines = [f'wrk.method = "{method}"', f"wrk.body = {_lua_string(body)}"]
    for name, value in headers.items():
        lines.append(f"wrk.headers[ {_lua_string(name)} ] = {_lua_string(value)}")
    if UNIQUE in body:
        lines += [
            "counter = 0",
            "request = function()",
            "  counter = counter + 1",
            f"  local body = string.gsub(wrk.body, {_lua_string(UNIQUE)}, tostring(counter))",
            "  return wrk.format(nil, nil, nil, body)",
            "end",
        ]
    return "\n".join(lines) + "\n"


def _millis(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip())
    if match is None:
        raise ValueError(f"unexpected wrk latency {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def parse_wrk(output: str) -> Load:
    total = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)", output)
    if total is None:
        raise ValueError(f"wrk printed no summary:\n{output}")
    count = int(total.group(1))
    seconds = _millis(total.group(2) + total.group(3)) / 1000
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = int(bad.group(1)) if bad else 0
    socket_errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    if socket_errors:
        errors += sum(int(g) for g in socket_errors.groups())
    p50 = re.search(r"^\s+50%\s+(\S+)", output, re.MULTILINE)
    p99 = re.search(r"^\s+99%\s+(\S+)", output, re.MULTILINE)
    return Load(
        done=max(0, count - (int(bad.group(1)) if bad else 0)),
        seconds=seconds,
        errors=errors,
        p50_ms=_millis(p50.group(1)) if p50 else None,
        p99_ms=_millis(p99.group(1)) if p99 else None,
        tool="wrk",
    )


def wrk(
    url: str,
    *,
    method: str = "GET",
    body: str = "",
    headers: dict[str, str] | None = None,
    connections: int,
    seconds: float,
) -> Load:
    """One wrk thread (the harness's core), ``connections`` keep-alive connections."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(wrk_script(method, body, headers or {}))
    try:
        argv = [
            "wrk",
            "-t1",
            f"-c{connections}",
            f"-d{max(1, round(seconds))}s",
            "--latency",
            "--timeout",
            "10s",
            "-s",
            script.name,
            url,
        ]
        done = subprocess.run(  # noqa: S603 (wrk with arguments the harness built)
            argv, capture_output=True, text=True, timeout=seconds + 30, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr.strip()}")
        return parse_wrk(done.stdout)
    finally:
        Path(script.name).unlink(missing_ok=True)


def smtp_source(
    port: int,
    message: bytes,
    *,
    sender: str,
    recipient: str,
    count: int,
    sessions: int,
    seconds: float,
) -> Load:
    """Up to ``count`` messages for at most ``seconds``, ``sessions`` in parallel, a new
    connection per message; the figure is the tool's own running counter."""
    program = smtp_source_path()
    if program is None:
        raise RuntimeError("smtp-source is not installed")
    with tempfile.NamedTemporaryFile("wb", suffix=".eml", delete=False) as handle:
        handle.write(message.replace(b"\r\n", b"\n"))
    argv = [program, "-c", "-s", str(sessions), "-m", str(count), "-f", sender, "-t", recipient]
    argv += ["-F", handle.name, "-M", "loadgen.bench", f"127.0.0.1:{port}"]
    try:
        started = time.perf_counter()
        # smtp-source with arguments the harness built.
        process = subprocess.Popen(  # noqa: S603
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        try:
            out, err = process.communicate(timeout=seconds)
            errors = 0 if process.returncode == 0 else 1
        except subprocess.TimeoutExpired:
            process.terminate()
            out, err = process.communicate(timeout=10)
            errors = 0
        elapsed = time.perf_counter() - started
        counts = [int(c) for c in out.replace(b"\n", b"\r").split(b"\r") if c.strip().isdigit()]
        done = counts[-1] if counts else 0
        if errors and not done:
            raise RuntimeError(f"smtp-source failed: {err.decode(errors='replace').strip()}")
        return Load(done, elapsed, errors, tool="smtp-source")
    finally:
        Path(handle.name).unlink(missing_ok=True)
