"""One verdict, every surface: the same flow's verdict and findings read byte for byte the
same in the terminal report, the JSON document, the HTML report and Wireshark (the
plugin's expert infos and verdict fields, under every tshark tests/tsharks.py finds),
because each prints the engine's finished strings."""

from __future__ import annotations

import functools
import html
import json
import tempfile
from pathlib import Path

import pytest

import plugin_compare as pc
import tsharks
from conftest import SAMPLES, run_tcpdiag

CAPTURES = sorted(SAMPLES.glob("*.pcap.gz"))
FOUND, MISSING = tsharks.discover()
TSHARKS = [pytest.param(t, id=str(t)) for t in FOUND] + [
    pytest.param(None, id=name, marks=pytest.mark.skip(reason=why)) for name, why in MISSING]


def _id(p: Path) -> str:
    return p.name.replace(".pcap.gz", "")


@functools.cache
def reports(path: Path) -> tuple[str, dict, str]:
    """`tcpdiag analyze` of `path` as text, as its JSON document and as its HTML page."""
    text = run_tcpdiag("analyze", str(path), check=True).stdout.decode()
    doc = json.loads(run_tcpdiag("analyze", str(path), "--json", check=True).stdout)
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "r.html"
        run_tcpdiag("analyze", str(path), "--html", str(page), "-q", check=True)
        body = page.read_text()
    assert doc["flows"], path
    return text, doc, body


@pytest.mark.parametrize("path", CAPTURES, ids=_id)
def test_findings_read_the_same_in_text_json_and_html(path):
    pytest.importorskip("plotly")
    text, doc, body = reports(path)
    for flow in doc["flows"]:
        for f in [flow["verdict"], *flow["findings"]]:
            assert f["message"] in text, f["id"]
            assert html.escape(f["message"]) in body, f["id"]
            if f is flow["verdict"] and f["remedy"]:
                assert f["remedy"] in text and html.escape(f["remedy"]) in body
        for line in [flow["time_line"], flow["transfer_line"], flow["congestion_control"]["evidence"],
                     *(flow["ceiling"] or {"lines": []})["lines"]]:
            assert line in text and html.escape(line) in body, line


WIRESHARK_FIELDS = ["tcpdiag.flow.verdict", "tcpdiag.flow.remedy", "tcpdiag.flow.shares", "tcpdiag.flow.transfer",
                    "tcpdiag.flow.ceiling", "tcpdiag.flow.control"]


@pytest.mark.parametrize("path", CAPTURES, ids=_id)
@pytest.mark.parametrize("ts", TSHARKS)
def test_findings_read_the_same_in_wireshark(ts, path):
    """Each flow's first frame carries the primary finding as an expert info, its remedy
    and the engine's time, transfer and ceiling lines; each finding's evidence frames
    carry that finding's expert info: the JSON document's strings, byte for byte."""
    pytest.importorskip("plotly")
    _, doc, _ = reports(path)
    shown = pc.experts(ts, path, pc.annotate(path), *[x for f in WIRESHARK_FIELDS for x in ("-e", f)])
    for flow in doc["flows"]:
        first = shown[flow["first_frame"]]
        verdict = flow["verdict"]
        assert first["tcpdiag.flow.verdict"] == [verdict["id"]], flow["stream"]
        assert verdict["message"] in first["_ws.expert.message"], (flow["stream"], first)
        if verdict["remedy"]:
            assert verdict["remedy"] in first["tcpdiag.flow.remedy"], flow["stream"]
        assert first["tcpdiag.flow.shares"] == [flow["time_line"]]
        assert first["tcpdiag.flow.transfer"] == [flow["transfer_line"]]
        assert first["tcpdiag.flow.control"] == [flow["congestion_control"]["evidence"]]
        assert first["tcpdiag.flow.ceiling"] == (flow["ceiling"] or {"lines": []})["lines"]
        for f in [verdict, *flow["findings"]]:
            for frame in f["frames"]:
                if frame:
                    assert f["message"] in shown[frame]["_ws.expert.message"], (f["id"], frame)
