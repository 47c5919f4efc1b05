"""Analysis.series / .events, the reporters tcpdiag.report / .plot, the notebook view on
the samples, and the display downsampling that must never hide an event."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import SAMPLES

import tcpdiag
from tcpdiag import units
from tcpdiag.report import downsample

#: What a flow's series reads as in pandas (docs/tables.md: series).
SERIES_DTYPES = {
    "frame": "uint64", "time": "datetime64[ns, UTC]", "t": "float64", "in_flight": "uint64", "rwnd": "uint64",
    "cwnd": "UInt64", "cwnd_conf": "category", "limit": "category", "throughput_bps": "float64",
    "goodput_bps": "float64", "rtt_ms": "float64",
}


@pytest.fixture(scope="module")
def reordering():
    return tcpdiag.analyze(str(SAMPLES / "reordering.sender.pcap.gz"))


def test_series_columns_and_dtypes_are_as_documented(reordering):
    s = reordering.series(0)
    assert {c: str(t) for c, t in s.dtypes.items()} == SERIES_DTYPES
    assert s["t"].is_monotonic_increasing and (s["in_flight"] >= 0).all()
    # the flow ran at ~5.7 Mbit/s: the trailing-window rates straddle that
    assert 2e6 < s["goodput_bps"].median() < 12e6
    assert s["rtt_ms"].min() >= reordering.verdicts[0].row["min_rtt_ms"] - 1e-6


def test_series_by_endpoints_equals_series_by_number(reordering):
    fl = reordering.verdicts[0].row
    spec = f"{fl['b_addr']}:{fl['b_port']}-{fl['a_addr']}:{fl['a_port']}"
    assert reordering.series(spec).equals(reordering.series(0))


def test_events_prove_every_retransmission_spurious_by_dsack(reordering):
    ev = reordering.events
    assert list(ev.columns) == ["frame", "stream", "time", "kind", "scope", "related_frame", "message"]
    retx = ev[ev["kind"] == "retransmission"]
    spurious = ev[ev["kind"] == "spurious_retransmission"]
    dsack = ev[ev["kind"] == "dsack"]
    assert len(retx) == reordering.verdicts[0].row["retrans"] > 0
    assert set(spurious["frame"]) == set(retx["frame"])
    # each spurious retransmission names the DSACK (or Eifel timestamp echo) that proved it
    by_dsack = spurious[spurious["message"].str.contains("D-SACK in frame")]
    assert len(by_dsack) >= len(spurious) - 2
    assert set(by_dsack["related_frame"].astype(int)) <= set(dsack["frame"])
    assert (ev["scope"] == "flow").sum() == len(reordering.verdicts[0].findings)


def test_report_text_for_one_flow():
    a = tcpdiag.analyze(str(SAMPLES / "reordering.sender.pcap.gz"), target_rate="1G")
    text = tcpdiag.text_report(a, 0)
    assert "REORDER LIMITED" in text and "for 1 Gbit/s this path needs" in text


@pytest.mark.parametrize("kind", ["sequence", "flight", "throughput", "rtt"])
def test_plot_returns_a_figure_with_data(reordering, kind):
    pytest.importorskip("plotly")
    fig = tcpdiag.plot(reordering, 0, kind)
    assert fig.data and sum(len(t.x) for t in fig.data if t.x is not None) > 100


def test_sequence_graph_marks_every_retransmission_and_dsack(reordering):
    pytest.importorskip("plotly")
    fig = tcpdiag.plot(reordering, 0, "sequence")
    names = {t.name: len(t.x) for t in fig.data if t.name}
    assert names["retransmissions (35)"] == 35 and names["DSACKs (35)"] == 35
    assert names["spurious retransmissions (35)"] == 35


def test_notebook_view_lists_flows_with_verdicts(reordering):
    html = reordering._repr_html_()
    assert "reorder_limited" in html and "<table" in html


def test_unknown_plot_kind_is_refused(reordering):
    pytest.importorskip("plotly")
    with pytest.raises(ValueError, match="unknown graph kind"):
        tcpdiag.plot(reordering, 0, "pie")


# ---------------------------------------------------------------- downsampling


def test_m4_keeps_each_buckets_extremes_and_ends():
    rng = np.random.default_rng(7)
    x = np.sort(rng.uniform(0, 100, 200_000))
    y = rng.normal(size=x.size)
    y[12_345] = 50.0  # a spike one pixel wide
    y[150_000] = -50.0
    keep = downsample.m4(x, y, n=500)
    assert len(keep) <= 4 * 500
    assert 12_345 in keep and 150_000 in keep and 0 in keep and x.size - 1 in keep


def test_m4_leaves_small_lines_alone_and_drops_nans():
    y = np.array([1.0, np.nan, 3.0])
    assert list(downsample.m4(np.arange(3.0), y)) == [0, 2]


def test_ranges_merge_a_burst_into_one_bar_per_bucket():
    x = np.linspace(0, 1, 10_000)
    lo = np.arange(10_000) * 10
    bx, blo, bhi = downsample.ranges(x, lo, lo + 10, n=100)
    assert len(bx) == 100 and blo[0] == 0 and bhi[-1] == 100_000


@pytest.mark.parametrize("text, bps", [("1G", 1e9), ("250M", 250e6), ("2.5Gbit/s", 2.5e9), ("100000", 1e5),
                                       ("10 Mbps", 10e6)])
def test_parse_rate(text, bps):
    assert units.parse_rate(text) == bps


@pytest.mark.parametrize("text", ["", "fast", "-1G", "0"])
def test_parse_rate_refuses(text):
    with pytest.raises(ValueError):
        units.parse_rate(text)


def test_progress_line_shows_how_far_the_reader_is(capsys, tmp_path):
    import time

    from tcpdiag.report.progress import Progress

    p = tmp_path / "big.bin"
    p.write_bytes(b"\0" * 1000)
    with open(p, "rb") as f:
        f.seek(500)
        with Progress(str(p), "analysing", enabled=True):
            time.sleep(0.6)
    err = capsys.readouterr().err
    assert "analysing [" in err and "50%" in err


def test_progress_is_off_when_stderr_is_not_a_terminal(capsys, tmp_path):
    from tcpdiag.report.progress import Progress

    p = tmp_path / "small.bin"
    p.write_bytes(b"\0")
    assert not Progress(str(p), "analysing").enabled
