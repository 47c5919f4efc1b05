"""One verdict, every surface: the same flow's verdict and findings read byte for byte the
same in the terminal report, the JSON document and the HTML report, because each prints the
engine's finished strings (the Wireshark plugin's expert infos: tests/test_wireshark_*)."""

from __future__ import annotations

import html
import json

import pytest

from conftest import SAMPLES, run_tcpdiag

CAPTURES = sorted(SAMPLES.glob("*.pcap.gz"))


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.name.replace(".pcap.gz", ""))
def test_findings_read_the_same_in_text_json_and_html(path, tmp_path):
    pytest.importorskip("plotly")
    text = run_tcpdiag("analyze", str(path), check=True).stdout.decode()
    doc = json.loads(run_tcpdiag("analyze", str(path), "--json", check=True).stdout)
    page = tmp_path / "r.html"
    run_tcpdiag("analyze", str(path), "--html", str(page), "-q", check=True)
    body = page.read_text()
    assert doc["flows"], path
    for flow in doc["flows"]:
        for f in [flow["verdict"], *flow["findings"]]:
            assert f["message"] in text, f["id"]
            assert html.escape(f["message"]) in body, f["id"]
            if f is flow["verdict"] and f["remedy"]:
                assert f["remedy"] in text and html.escape(f["remedy"]) in body
        for line in [flow["time_line"], flow["transfer_line"], *(flow["ceiling"] or {"lines": []})["lines"]]:
            assert line in text and html.escape(line) in body, line
