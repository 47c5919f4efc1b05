"""`tcpdiag packets` equals tshark's own dissection, frame for frame, on every corpus capture.

Compared per frame: frame.number, tcp.stream, tcp.srcport, tcp.dstport, tcp.seq_raw,
tcp.ack_raw, tcp.len, tcp.flags, tcp.window_size_value. The only frames allowed to differ are
those of the documented exceptions (docs/conformance.md), each detected by a rule below.
"""

from __future__ import annotations

import csv
import io
import subprocess

import pytest

from conftest import corpus_captures, corpus_id, run_tcpdiag

FIELDS = ["frame.number", "tcp.stream", "tcp.srcport", "tcp.dstport", "tcp.seq_raw", "tcp.ack_raw",
          "tcp.len", "tcp.flags", "tcp.window_size_value", "frame.protocols"]
OURS = ["frame", "stream", "sport", "dport", "seq_raw", "ack_raw", "tcp_len", "flags", "win_raw"]

# Frames where tcpdiag deliberately differs, with the reason (docs/conformance.md).
KNOWN_DIFFERENCES = {
    ("the-tcpdump-group_tcpdump/tests/bigtcp-ipv6.pcap", 1):
        "IPv6 payload length 0 without a Jumbo option (BIG TCP captured on the host): tshark 4.0 "
        "shows no TCP; tcpdiag takes the length from the frame, as for IPv4 TSO",
}


def tshark_rows(tshark: str, path) -> tuple[dict[int, list[str]], bool]:
    cmd = [tshark, "-n", "-r", str(path), "-Y", "tcp", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a",
           "-E", "aggregator=,"] + [x for f in FIELDS for x in ("-e", f)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    rows = {}
    for line in out.stdout.splitlines():
        vals = line.split("\t")
        rows[int(vals[0])] = vals[1:]
    return rows, "cut short in the middle of a packet" in out.stderr


def exception_reason(tshark_vals: list[str]) -> str | None:
    """Why a frame may legitimately differ, or None if it must match."""
    protocols = tshark_vals[-1].split(":")
    if "icmp" in protocols or "icmpv6" in protocols:
        return "TCP header quoted inside an ICMP error"
    if any("," in v for v in tshark_vals[:-1]):
        return "several TCP layers in one frame"
    return None


@pytest.mark.parametrize("path", corpus_captures(), ids=corpus_id)
def test_packets_equal_tshark(path, tshark):
    theirs, cut_short = tshark_rows(tshark, path)
    res = run_tcpdiag("packets", str(path))
    # A capture cut mid-record: tshark warns and shows what it read; we exit 5 with the same.
    assert res.returncode == (5 if cut_short else 0), res.stderr.decode()
    ours = {int(r["frame"]): r for r in csv.DictReader(io.StringIO(res.stdout.decode()))}

    mismatches = []
    for frame in sorted(set(theirs) | set(ours)):
        t = theirs.get(frame)
        o = ours.get(frame)
        if (t is not None and exception_reason(t)) or (corpus_id(path), frame) in KNOWN_DIFFERENCES:
            continue
        if t is None or o is None:
            mismatches.append((frame, "only in tshark" if o is None else "only in tcpdiag"))
            continue
        expected = [t[0], t[1], t[2], str(int(t[3] or 0)), str(int(t[4] or 0)), t[5], str(int(t[6], 16)), t[7]]
        got = [o["stream"], o["sport"], o["dport"], o["seq_raw"], o["ack_raw"], o["tcp_len"], o["flags"], o["win_raw"]]
        if expected != got:
            mismatches.append((frame, dict(zip(OURS[1:], zip(expected, got)))))
    assert not mismatches, f"{len(mismatches)} frames differ, first: {mismatches[:5]}"
