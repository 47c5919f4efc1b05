"""The Python API returns the same tables as the CLI, as typed DataFrames."""

from __future__ import annotations

import warnings

import pytest

pd = pytest.importorskip("pandas")

import tcpdiag  # noqa: E402
from pcapbuild import handshake_and_data, pcap_of  # noqa: E402


@pytest.fixture
def capture(tmp_path):
    p = tmp_path / "hs.pcap"
    p.write_bytes(pcap_of(handshake_and_data(n_data=4)))
    return str(p)


def test_flows_dataframe(capture):
    df = tcpdiag.flows(capture)
    assert list(df.index) == [0]
    row = df.loc[0]
    assert row.packets_ab == 6 and row.mss_b == 1460 and bool(row.wscale_in_effect)
    assert str(df["start"].dtype) == "datetime64[ns, UTC]"


def test_packets_dataframe_dtypes(capture):
    df = tcpdiag.packets(capture)
    assert len(df) == 8
    assert df["seq_raw"].dtype == "uint32" and df["src"].dtype == "category"
    assert df.loc[3, "tcp_len"] == 1448


def test_iter_packets_chunks(capture):
    sizes = [len(c) for c in tcpdiag.iter_packets(capture, chunk_rows=3)]
    assert sizes == [3, 3, 2]


def test_damaged_raises_with_partial_or_warns(capture, tmp_path):
    data = open(capture, "rb").read()
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(data[:-30])
    with pytest.raises(tcpdiag.CaptureDamagedError) as ei:
        tcpdiag.flows(str(cut))
    assert ei.value.frames_read == 7 and isinstance(ei.value, ValueError)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        df = tcpdiag.flows(str(cut), errors="warn")
    assert df.loc[0, "packets_ab"] == 6 and df.loc[0, "packets_ba"] == 1
    assert any(issubclass(x.category, tcpdiag.CaptureWarning) for x in w)


def test_not_a_capture_raises(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("nope")
    with pytest.raises(tcpdiag.NotACaptureError):
        tcpdiag.flows(str(p))
    with pytest.raises(tcpdiag.CaptureIOError):
        tcpdiag.flows(str(tmp_path / "missing.pcap"))


def test_flows_with_times_beyond_pandas_range_become_nat(corpus):
    # pcapng-example.pcapng carries flows with timestamps past 2262 (nanosecond datetimes end there).
    path = corpus / "seladb_PcapPlusPlus/Tests/Pcap++Test/PcapExamples/pcapng-example.pcapng"
    df = tcpdiag.analyze(str(path), errors="warn").flows
    assert df["start"].isna().any() and df["start"].notna().any()


def test_verdicts_of_many_flows_equal_one_at_a_time(tmp_path):
    # 1,500 flows: past the size from which Verdicts.at turns the tables into Python in
    # slices; every verdict (row and findings) must be the one looked up alone.
    segs = []
    for i in range(1500):
        for s in handshake_and_data(n_data=1 + i % 3):
            port = 20000 + i if s.sport == 40000 else s.sport
            dport = 20000 + i if s.dport == 40000 else s.dport
            segs.append(s.but(sport=port, dport=dport, ts=s.ts + i * 0.001))
    segs.sort(key=lambda s: s.ts)
    p = tmp_path / "many.pcap"
    p.write_bytes(pcap_of(segs))
    v = tcpdiag.analyze(str(p)).verdicts
    assert len(v) == 1500
    positions = list(range(1499, -1, -2)) + list(range(0, 1500, 2))
    # Rows are in stream order: row i is stream i.
    assert v.at(positions) == [v[i] for i in positions]
    assert any(f.findings for f in v.at(positions))
