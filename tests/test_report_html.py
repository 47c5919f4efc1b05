"""The HTML report in a real headless browser: loads offline without console errors, every
graph is drawn, the screenshot is not blank; and it stays small on a large flow without
dropping an event."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES, run_tcpdiag

pytest.importorskip("plotly")
browser = pytest.importorskip("browser")

if browser.chromium() is None:
    pytest.skip("chromium not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def chrome():
    pytest.importorskip("websockets")
    with browser.Browser() as b:
        yield b


def _html(tmp_path: Path, capture: Path, *args: str) -> Path:
    out = tmp_path / "report.html"
    r = run_tcpdiag("analyze", str(capture), "-q", "--html", str(out), *args)
    assert r.returncode == 0, r.stderr
    return out


def test_report_is_self_contained(tmp_path):
    html = _html(tmp_path, SAMPLES / "reordering.sender.pcap.gz").read_text()
    assert not re.search(r"<script[^>]+src=", html), "scripts must be inline (offline, no CDN)"
    assert "Plotly.newPlot" in html and "reorder_limited" in html


@pytest.mark.parametrize("name", ["reordering", "small_rcvbuf", "slow_reader"])
def test_report_renders_every_graph_without_errors(chrome, tmp_path, name):
    page = chrome.load(_html(tmp_path, SAMPLES / f"{name}.sender.pcap.gz"))
    assert page.errors == []
    assert page.graphs == page.expected == 4
    assert page.main_svg >= 4
    assert all(t > 0 for t in page.traces) and all(d > 0 for d in page.drawn)
    assert all(p > 100 for p in page.points)
    assert browser.distinct_colours(page.screenshot) > 200


def test_large_flow_stays_small_and_keeps_every_event(chrome, tmp_path):
    import tcpdiag

    cap = tmp_path / "bulk.pcap"
    subprocess.run([sys.executable, str(ROOT / "tools" / "synth_bulk.py"), str(cap), "300000",
                    "--retransmit-every", "997"], check=True)
    t0 = time.monotonic()
    out = _html(tmp_path, cap)
    build_s = time.monotonic() - t0
    a = tcpdiag.analyze(str(cap))
    retx = int((a.packets["retrans"] != "").sum())
    assert retx >= 150
    # every retransmission is a marker, whatever the downsampling did to the lines
    assert f"retransmissions ({retx})" in out.read_text()
    page = chrome.load(out)
    assert page.errors == [] and page.graphs == 4
    assert max(page.points) < 40_000, page.points  # ~300k packets drawn as a few thousand points
    print(json.dumps({"packets": 300_000, "html_bytes": out.stat().st_size, "build_s": round(build_s, 2),
                      "load_ms": page.load_ms, "points": page.points}))
