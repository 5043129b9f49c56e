"""A real headless Chromium, driven over the DevTools protocol, for rendering emails.

Debian's ``chromium`` is started with a private profile and a random
DevTools port; one page is driven through a plain WebSocket (the
``websockets`` library's synchronous client). Every http(s) load is blocked,
as a careful mail client would, so only the email's own markup is measured.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

from websockets.sync.client import ClientConnection, connect

# Measures what a reader sees: horizontal overflow, where blocks end, and the
# lowest contrast of any visible text against the background actually behind it.
MEASURE_JS = r"""
(() => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(',').map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const lum = (rgb) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(rgb[0]) + 0.7152 * f(rgb[1]) + 0.0722 * f(rgb[2]);
  };
  const canvas = () => parse(getComputedStyle(document.documentElement).backgroundColor);
  const behind = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg[3] > 0.5) return bg;
    }
    const root = canvas();
    if (root[3] > 0.5) return root;
    return window.__hfaCanvas || [255, 255, 255, 1];
  };
  let worst = 99, worstText = '';
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].filter(n => n.nodeType === 3 && n.textContent.trim());
    if (!own.length) continue;
    const r = el.getBoundingClientRect();
    const st = getComputedStyle(el);
    if (r.width === 0 || r.height === 0 || st.visibility === 'hidden' || +st.opacity === 0) continue;
    if (el.closest('.hfa-preheader')) continue;
    const fg = parse(st.color), bg = behind(el);
    const a = lum(fg), b = lum(bg);
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < worst) { worst = ratio; worstText = own[0].textContent.trim().slice(0, 60); }
  }
  const bottom = (sel) => {
    const e = document.querySelector(sel);
    return e ? e.getBoundingClientRect().bottom + window.scrollY : null;
  };
  return {
    scrollWidth: document.documentElement.scrollWidth,
    bodyScrollWidth: document.body.scrollWidth,
    innerWidth: window.innerWidth,
    height: document.documentElement.scrollHeight,
    summaryBottom: bottom('.hfa-summary'),
    answersBottom: bottom('.hfa-answers'),
    minContrast: worst,
    minContrastText: worstText,
    h1: document.querySelector('h1') ? document.querySelector('h1').textContent : null,
  };
})()
"""


def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Chromium:
    """One headless browser with one page; use as a context manager."""

    def __init__(self, binary: str) -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="hfa-chromium-"))
        self.proc = subprocess.Popen(
            [
                binary,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-extensions",
                "--no-first-run",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.ids = itertools.count(1)
        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(self._connect())
        self.send("Page.enable")
        self.send("Network.enable")
        self.send("Network.setBlockedURLs", urls=["http://*", "https://*", "ws://*", "wss://*"])

    def _connect(self) -> ClientConnection:
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromium did not start its DevTools endpoint")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            pages = [t for t in json.load(r) if t["type"] == "page"]
        return connect(pages[0]["webSocketDebuggerUrl"], max_size=None, open_timeout=10)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        call_id = next(self.ids)
        self.ws.send(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=60))
            if message.get("id") == call_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    def load(self, html: str, *, width: int, mobile: bool, dark: bool = False) -> None:
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=900,
            deviceScaleFactor=1,
            mobile=mobile,
        )
        scheme = "dark" if dark else "light"
        self.send(
            "Emulation.setEmulatedMedia",
            features=[{"name": "prefers-color-scheme", "value": scheme}],
        )
        path = self.profile / "email.html"
        path.write_text(html, encoding="utf-8")
        self.send("Page.navigate", url=path.as_uri())
        deadline = time.monotonic() + 20
        while self.evaluate("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise RuntimeError("page did not load")
            time.sleep(0.02)

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def measure(self) -> dict[str, Any]:
        value: dict[str, Any] = self.evaluate(MEASURE_JS)
        return value

    def screenshot(self, path: Path, full: bool = True) -> None:
        shot = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=full)
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        try:
            self.stack.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
