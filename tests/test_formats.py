"""snoop, Peek classic and NetMon files built from their documentation (tests/formatbuild.py)
read by tcpdiag as tshark reads them, frame for frame: number, time, stream, ports, raw
sequence and acknowledgement numbers, tcp.len, flags, window; frame lengths through each
flow direction's byte count (`tcp.stream` × direction sums of frame.len). The corpus files
in these formats are compared by test_conformance_tshark.py and, for times and lengths
frame by frame, by analyzer/core/tests/ingest_corpus.rs.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
from collections import defaultdict

import pytest

import formatbuild as fb
from conftest import run_tcpdiag
from pcapbuild import Seg, handshake_and_data

FIELDS = ["frame.number", "frame.time_epoch", "frame.len", "tcp.stream", "tcp.srcport", "tcp.dstport",
          "tcp.seq_raw", "tcp.ack_raw", "tcp.len", "tcp.flags", "tcp.window_size_value"]


def frames() -> list[fb.Frame]:
    """Two flows: a handshake and data (one frame cut by the snapshot length), then a second
    connection's SYN; times with microseconds, so the formats' resolutions show."""
    segs = handshake_and_data(n_data=5)
    segs = [s.but(ts=s.ts + i * 0.0012345) for i, s in enumerate(segs)]
    segs.append(Seg(sport=40001, seq=77, flags=0x02, ts=segs[-1].ts + 0.5))
    out = []
    for i, s in enumerate(segs):
        f = s.frame()
        out.append((s.ts, len(f), f[:60] if i == 4 else f))
    return out


def raw_ip(fr: list[fb.Frame]) -> list[fb.Frame]:
    return [(t, wire - 14, data[14:]) for t, wire, data in fr]


CASES = {
    "snoop": lambda: fb.snoop(frames()),
    "peek-v5": lambda: fb.peek_classic(frames(), version=5),
    "peek-v6": lambda: fb.peek_classic(frames(), version=6),
    "peek-v7": lambda: fb.peek_classic(frames(), version=7),
    "netmon-1.1": lambda: fb.netmon(frames(), version=(1, 1)),
    "netmon-2.0": lambda: fb.netmon(frames(), version=(2, 0)),
    "netmon-2.1": lambda: fb.netmon(frames(), version=(2, 1)),
    "netmon-2.2": lambda: fb.netmon(frames(), version=(2, 2)),
    "netmon-2.3": lambda: fb.netmon(frames(), version=(2, 3)),
    # The frame table, not the file, gives the order; records with gaps between them.
    "netmon-2.3-table-order-holes": lambda: fb.netmon(frames(), version=(2, 3), hole=6,
                                                      table_order=[0, 1, 2, 4, 3, 5, 6, 7, 8, 9]),
    # Per-frame network types: raw IP (NetMon's own 9 and pcap's 0xE000 | 101), an adapter
    # list Wireshark shows as a frame (0xFFFB) and a DNS cache record it skips (0xFFFE).
    "netmon-2.3-per-frame-networks": lambda: fb.netmon(
        [f if i % 3 else raw for i, (f, raw) in enumerate(zip(frames(), raw_ip(frames())))][:8]
        + [(frames()[8][0], 4, b"meta"), (frames()[8][0] + 0.1, 4, b"dnsc")] + frames()[8:],
        version=(2, 3), frame_networks=[9, 1, 1, 0xE065, 1, 1, 9, 1, 0xFFFB, 0xFFFE, 1, 1]),
}


def tshark_rows(tshark: str, path) -> dict[int, list[str]]:
    cmd = [tshark, "-n", "-r", str(path), "-T", "fields", "-E", "separator=/t"] + [x for f in FIELDS for x in ("-e", f)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, "TZ": "UTC"})
    assert out.returncode == 0, out.stderr
    return {int(v[0]): v[1:] for v in (line.split("\t") for line in out.stdout.splitlines())}


@pytest.mark.parametrize("case", CASES)
def test_format_reads_as_tshark_reads_it(case, tshark, tmp_path):
    p = tmp_path / f"{case}.cap"
    p.write_bytes(CASES[case]())
    theirs = tshark_rows(tshark, p)
    res = run_tcpdiag("packets", str(p))
    assert res.returncode == 0, res.stderr.decode()
    ours = {int(r["frame"]): r for r in csv.DictReader(io.StringIO(res.stdout.decode()))}
    tcp_frames = {n for n, v in theirs.items() if v[2]}
    assert set(ours) == tcp_frames
    sums: dict[tuple[int, int], int] = defaultdict(int)
    for n in sorted(tcp_frames):
        t, o = theirs[n], ours[n]
        assert o["ts"] == f"{float(t[0]):.9f}" or abs(float(o["ts"]) - float(t[0])) < 1e-9, (n, o["ts"], t[0])
        expected = [t[2], t[3], t[4], t[5], t[6], t[7], str(int(t[8], 16)), t[9]]
        got = [o["stream"], o["sport"], o["dport"], o["seq_raw"], o["ack_raw"], o["tcp_len"], o["flags"], o["win_raw"]]
        assert got == expected, f"frame {n}"
        sums[int(t[2]), int(o["dir"])] += int(t[1])
    flows = json.loads(run_tcpdiag("flows", "--format", "json", str(p), check=True).stdout)["flows"]
    for f in flows:
        assert (f["bytes_ab"], f["bytes_ba"]) == (sums[f["stream"], 0], sums[f["stream"], 1]), f["stream"]


@pytest.mark.parametrize("case,damage,needle", [
    ("netmon-2.3", lambda b: b[:-45], "truncated"),
    ("netmon-2.3", lambda b: b[:24] + (10**9).to_bytes(4, "little") + b[28:], "truncated"),
    ("snoop", lambda b: b[:-30], "truncated"),
    ("peek-v7", lambda b: b[:-30], "truncated"),
])
def test_damage_gives_one_line_and_the_frames_before(case, damage, needle, tmp_path):
    p = tmp_path / "bad.cap"
    p.write_bytes(damage(CASES[case]()))
    r = run_tcpdiag("flows", "--format", "json", str(p))
    lines = [line for line in r.stderr.decode().splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0] and str(p) in lines[0], r.stderr
    assert r.returncode in (4, 5), r.returncode
