"""Loads a page in Debian's headless chromium over the DevTools protocol and reports what a
user would see: console errors, uncaught exceptions, the plotly graphs drawn, a screenshot.

Used by the HTML report tests and by tools/gen_verdict_images.py. No mocks: a real browser.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio"]

#: Counts the plotly graphs and what they hold, once the page has drawn.
_PROBE = """(() => {
  const gds = [...document.querySelectorAll('.js-plotly-plot')];
  return JSON.stringify({
    graphs: gds.length,
    expected: window.tcpdiagGraphs === undefined ? null : window.tcpdiagGraphs,
    main_svg: document.querySelectorAll('.main-svg').length,
    traces: gds.map(g => (g.data || []).length),
    points: gds.map(g => (g._fullData || []).reduce((n, t) => n + (t.x && t.x.length ? t.x.length : 0), 0)),
    drawn: gds.map(g => g.querySelectorAll('.scatterlayer .trace').length),
    load_ms: performance.getEntriesByType('navigation')[0].loadEventEnd,
  });
})()"""


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        exe = shutil.which(name)
        if exe:
            return exe
    return None


@dataclass
class PageReport:
    errors: list[str] = field(default_factory=list)
    graphs: int = 0
    expected: int | None = None
    main_svg: int = 0
    traces: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    drawn: list[int] = field(default_factory=list)
    load_ms: float = 0.0
    screenshot: bytes = b""


class Browser:
    """One headless chromium with a fresh profile, driven through one page target."""

    def __init__(self, width: int = 1280, height: int = 900) -> None:
        exe = chromium()
        if exe is None:
            raise RuntimeError("chromium not installed")
        self.profile = tempfile.mkdtemp(prefix="tcpdiag-chromium-")
        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-port=0",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("chromium did not start")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        pages = []
        while not pages:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                pages = [t for t in json.load(r) if t["type"] == "page"]
            if not pages:
                time.sleep(0.1)
        from websockets.sync.client import connect

        self._stack = contextlib.ExitStack()
        self.ws = self._stack.enter_context(connect(pages[0]["webSocketDebuggerUrl"], max_size=None, open_timeout=30))
        self._ids = itertools.count(1)
        self.events: list[dict] = []
        for method in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.call(method)

    def call(self, method: str, timeout: float = 120, **params) -> dict:
        msg_id = next(self._ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            msg = json.loads(self.ws.recv(timeout=max(deadline - time.monotonic(), 0.01)))
            if msg.get("id") == msg_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def _wait_event(self, method: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == method for e in self.events):
            self.events.append(json.loads(self.ws.recv(timeout=max(deadline - time.monotonic(), 0.01))))

    def load(self, path: Path, timeout: float = 120, screenshot: bool = True) -> PageReport:
        self.events.clear()
        t0 = time.monotonic()
        self.call("Page.navigate", url=path.resolve().as_uri())
        self._wait_event("Page.loadEventFired", timeout - (time.monotonic() - t0))
        rep = PageReport()
        while True:  # plotly draws synchronously per graph, but let any promise settle
            probe = json.loads(self.call("Runtime.evaluate", expression=_PROBE, returnByValue=True)["result"]["value"])
            if probe["expected"] is None or probe["graphs"] >= probe["expected"] or time.monotonic() - t0 > timeout:
                break
            time.sleep(0.1)
        for k, v in probe.items():
            setattr(rep, k, v)
        if screenshot:
            shot = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
            rep.screenshot = base64.b64decode(shot["data"])
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                rep.errors.append(f"exception: {d.get('exception', {}).get('description') or d.get('text')}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                rep.errors.append("console.error: " + " ".join(str(a.get("value", a.get("description")))
                                                               for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                rep.errors.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
        return rep

    def close(self) -> None:
        try:
            if getattr(self, "_stack", None) is not None:
                self._stack.close()
        finally:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def distinct_colours(png: bytes) -> int:
    """Number of distinct RGB colours in a PNG (a blank page has one or two)."""
    import io

    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    img.thumbnail((800, 800))  # keeps it quick; antialiasing only adds colours
    return len(img.getcolors(maxcolors=1 << 20) or [])


if __name__ == "__main__":  # python tests/browser.py report.html: a quick look by hand
    import sys

    with Browser() as b:
        r = b.load(Path(sys.argv[1]))
        out = Path(os.environ.get("TMPDIR", "/tmp")) / "tcpdiag-page.png"
        out.write_bytes(r.screenshot)
        print(json.dumps({**{k: v for k, v in r.__dict__.items() if k != "screenshot"},
                          "colours": distinct_colours(r.screenshot), "png": str(out)}, indent=1))
