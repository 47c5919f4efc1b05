"""Windows ETL traces through the CLI and the API: `convert` (both modes) against the
Windows reference conversion, `flows`/`analyze` read ETL directly without PktMon copies
turning into retransmissions, TCPIP events mapped to flows, and bad input."""

from __future__ import annotations

import struct

import pytest

import etlbuild
from conftest import CORPUS, run_tcpdiag

EXIT_IO, EXIT_NOT_CAPTURE, EXIT_DAMAGED = 3, 4, 5
ETL_DIR = CORPUS / "etl"


def corpus_traces() -> list:
    return sorted(ETL_DIR.glob("*.etl")) if ETL_DIR.is_dir() else []


def epbs(data: bytes) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int, bytes, int | None]]]:
    """(linktype, snaplen, tsresol) per IDB and (iface, ts, origlen, data, flags) per EPB of a
    little-endian pcapng file (what the writers here produce)."""
    ifaces, packets, at = [], [], 0
    while at + 12 <= len(data):
        ty, ln = struct.unpack_from("<II", data, at)
        body = data[at + 8:at + ln - 4]
        if ty == 1:
            lt, _, snap = struct.unpack_from("<HHI", body)
            res, o = 6, 8
            while o + 4 <= len(body):
                code, olen = struct.unpack_from("<HH", body, o)
                if code == 9:
                    res = body[o + 4]
                o += 4 + olen + (-olen % 4)
            ifaces.append((lt, snap, res))
        elif ty == 6:
            iface, hi, lo, cap, orig = struct.unpack_from("<IIIII", body)
            flags, o = None, 20 + cap + (-cap % 4)
            while o + 4 <= len(body):
                code, olen = struct.unpack_from("<HH", body, o)
                if code == 2:
                    flags = struct.unpack_from("<I", body, o + 4)[0]
                o += 4 + olen + (-olen % 4)
            packets.append((iface, (hi << 32) | lo, orig, body[20:20 + cap], flags))
        at += ln
    return ifaces, packets


def as_us(ifaces, p) -> int:
    res = ifaces[p[0]][2]
    return p[1] // 10 ** (res - 6)


# ---- corpus -------------------------------------------------------------------


@pytest.mark.parametrize("trace", corpus_traces(), ids=lambda p: p.name)
@pytest.mark.parametrize("mode", [[], ["--compat", "etl2pcapng"], ["--etl-component", "all"]], ids=["default", "compat", "all"])
def test_every_corpus_trace_converts(trace, mode, tmp_path):
    out = tmp_path / "out.pcapng"
    r = run_tcpdiag("convert", str(trace), "-o", str(out), *mode)
    assert r.returncode == 0, r.stderr.decode()
    assert "wrote" in r.stderr.decode()
    ifaces, packets = epbs(out.read_bytes())
    assert all(lt in (1, 101, 105) for lt, _, _ in ifaces)
    assert all(p[0] < len(ifaces) and len(p[3]) <= p[2] for p in packets)
    if mode == ["--compat", "etl2pcapng"]:
        assert all(snap == 65535 and res == 6 for _, snap, res in ifaces)


# Packets (every copy), truncated, per link type — as etl/tests/corpus.rs records them.
COUNTS = {
    "pktmon_demikernel_icmp.etl": (114, 0, {1: 114}),
    "pktmon_udp_ipv6.etl": (51, 0, {1: 51}),
    "pktmon_vpn_a_trunc128.etl": (2705, 683, {1: 1739, 105: 966}),
    "pktmon_wifi_eth_drops.etl": (30132, 0, {1: 12142, 101: 3428, 105: 14562}),
}


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_corpus_counts_link_types_and_truncation(name, tmp_path):
    trace = ETL_DIR / name
    if not trace.exists():
        pytest.skip("corpus absent")
    out = tmp_path / "out.pcapng"
    assert run_tcpdiag("convert", str(trace), "-o", str(out), "--etl-component", "all").returncode == 0
    ifaces, packets = epbs(out.read_bytes())
    total, truncated, per_type = COUNTS[name]
    assert len(packets) == total
    assert sum(len(p[3]) < p[2] for p in packets) == truncated
    seen: dict[int, int] = {}
    for p in packets:
        seen[ifaces[p[0]][0]] = seen.get(ifaces[p[0]][0], 0) + 1
    assert seen == per_type


@pytest.mark.parametrize("mode", [["--etl-component", "all"], ["--compat", "etl2pcapng"]], ids=["default", "compat"])
def test_conversion_matches_the_windows_reference(mode, tmp_path):
    trace, ref = ETL_DIR / "pktmon_demikernel_icmp.etl", ETL_DIR / "pktmon_demikernel_icmp.pktmon-etl2pcap.pcapng"
    if not ref.exists():
        pytest.skip("corpus absent")
    out = tmp_path / "out.pcapng"
    assert run_tcpdiag("convert", str(trace), "-o", str(out), *mode).returncode == 0
    ours_if, ours = epbs(out.read_bytes())
    ref_if, theirs = epbs(ref.read_bytes())
    assert len(ours) == len(theirs) == 114
    for i, (a, b) in enumerate(zip(ours, theirs), 1):
        assert (as_us(ours_if, a), a[2], a[3]) == (as_us(ref_if, b), b[2], b[3]), f"packet {i}"


def test_analyze_reads_etl_and_hides_pktmon_copies():
    trace = ETL_DIR / "pktmon_wifi_eth_drops.etl"
    if not trace.exists():
        pytest.skip("corpus absent")
    r = run_tcpdiag("flows", str(trace), "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    import json

    doc = json.loads(r.stdout)
    assert doc["stats"]["tcp_segments"] > 1000
    r_all = run_tcpdiag("flows", str(trace), "--format", "json", "--etl-component", "all")
    assert json.loads(r_all.stdout)["stats"]["tcp_segments"] > doc["stats"]["tcp_segments"]


# ---- synthetic traces ----------------------------------------------------------


@pytest.fixture
def transfer(tmp_path):
    p = tmp_path / "transfer.etl"
    p.write_bytes(etlbuild.tcp_transfer_trace())
    return p


def test_duplicates_are_not_retransmissions_by_default(transfer):
    import tcpdiag
    import tcpdiag.etl

    a = tcpdiag.analyze(str(transfer))
    assert list(a.flows["retrans"]) == [0]
    assert a.flows["packets_ab"][0] == 8
    with tcpdiag.etl.component("all"):
        every = tcpdiag.analyze(str(transfer))
    assert every.flows["retrans"][0] > 0, "every copy: the duplicates look like retransmissions"
    with tcpdiag.etl.component("1"):
        assert tcpdiag.flows(str(transfer))["packets_ab"][0] == 8


def test_windows_state_beside_the_flow(transfer):
    import tcpdiag
    import tcpdiag.etl

    ev = tcpdiag.etl.tcpip_events(str(transfer))
    assert list(ev["event_id"]).count(1332) == 6
    assert str(ev["Cwnd"].dtype) == "Int64"
    sends = ev[ev["event_id"] == 1332]
    assert set(sends["local_port"]) == {50000} and set(sends["remote_addr"]) == {"10.0.0.2"}
    ws = tcpdiag.analyze(str(transfer)).windows_state(0)
    assert list(ws[ws["event_id"] == 1332]["Cwnd"]) == [14600 + 1460 * i for i in range(6)]
    assert set(ws["sender"]) == {"a"}


def test_packets_csv_from_etl(transfer, tmp_path):
    out = tmp_path / "p.csv"
    r = run_tcpdiag("packets", str(transfer), "-o", str(out))
    assert r.returncode == 0, r.stderr.decode()
    assert len(out.read_text().splitlines()) == 1 + 15


def test_list_components(transfer):
    r = run_tcpdiag("convert", "--list-components", str(transfer))
    assert r.returncode == 0


# ---- bad input ------------------------------------------------------------------


def one_line(stderr: bytes) -> str:
    text = stderr.decode()
    assert "Traceback" not in text and "panicked" not in text, text
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    return lines[0]


@pytest.mark.parametrize("command", ["flows", "convert"])
def test_empty_etl(command, tmp_path):
    p = tmp_path / "empty.etl"
    p.write_bytes(b"")
    r = run_tcpdiag(command, str(p), "-o", str(tmp_path / "o"))
    assert r.returncode == EXIT_NOT_CAPTURE
    assert "empty" in one_line(r.stderr)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command", ["flows", "convert"])
def test_text_named_etl_is_not_a_trace(command, tmp_path):
    p = tmp_path / "notes.etl"
    p.write_text("hello, not a trace\n" * 10)
    r = run_tcpdiag(command, str(p), "-o", str(tmp_path / "o"))
    assert r.returncode == EXIT_NOT_CAPTURE
    line = one_line(r.stderr)
    assert "notes.etl" in line and "offset 0" in line


def test_missing_etl(tmp_path):
    r = run_tcpdiag("convert", str(tmp_path / "nope.etl"))
    assert r.returncode == EXIT_IO
    assert "nope.etl" in one_line(r.stderr)


def test_pcap_is_not_converted(tmp_path):
    from pcapbuild import handshake_and_data, pcap_of

    p = tmp_path / "x.pcap"
    p.write_bytes(pcap_of(handshake_and_data()))
    r = run_tcpdiag("convert", str(p), "-o", str(tmp_path / "o.pcapng"))
    assert r.returncode == EXIT_NOT_CAPTURE
    assert "not an ETL trace" in one_line(r.stderr)


@pytest.mark.parametrize("cut", [100, 3000])
def test_truncated_etl_gives_partial_results(transfer, tmp_path, cut):
    data = transfer.read_bytes()
    p = tmp_path / "cut.etl"
    p.write_bytes(data[:-cut])
    out = tmp_path / "o.pcapng"
    r = run_tcpdiag("convert", str(p), "-o", str(out))
    assert r.returncode == EXIT_DAMAGED
    lines = r.stderr.decode().splitlines()
    assert any("truncated" in line and "offset" in line for line in lines), lines
    assert out.exists()
    r = run_tcpdiag("flows", str(p))
    assert r.returncode == EXIT_DAMAGED
    assert "truncated" in r.stderr.decode()


def test_corrupt_compressed_buffer(tmp_path):
    data = bytearray(etlbuild.tcp_transfer_trace(compressed=True))
    # The second buffer's compressed bytes: break a flag word so a match points before the start.
    second = struct.unpack_from("<I", data, 0)[0]
    data[second + etlbuild.BUFFER_HEADER_LEN:second + etlbuild.BUFFER_HEADER_LEN + 4] = b"\xff\xff\xff\xff"
    p = tmp_path / "corrupt.etl"
    p.write_bytes(bytes(data))
    r = run_tcpdiag("flows", str(p))
    assert r.returncode == EXIT_DAMAGED
    assert "corrupt" in r.stderr.decode() and f"offset {second}" in r.stderr.decode()


def test_truncated_header_is_damaged_not_a_crash(tmp_path):
    p = tmp_path / "head.etl"
    p.write_bytes(etlbuild.header_buffer()[:40])
    for command in ("flows", "convert"):
        r = run_tcpdiag(command, str(p), "-o", str(tmp_path / "o"))
        assert r.returncode in (EXIT_NOT_CAPTURE, EXIT_DAMAGED)
        one_line(r.stderr)


def test_compat_takes_no_component(transfer):
    r = run_tcpdiag("convert", str(transfer), "--compat", "etl2pcapng", "--etl-component", "3")
    assert r.returncode == 2
