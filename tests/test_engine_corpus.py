"""The engine against Wireshark's own dissection on the third-party corpus.

- D-SACKs: the frames we mark equal those with tshark's `tcp.options.sack.dsack`, exactly.
- Retransmissions agree with `tcp.analysis.retransmission` (incl. fast/spurious) frame for
  frame, except in the documented cases (docs/conformance.md) where our evidence says
  Wireshark's heuristic is wrong; every differing frame must fall in one of them.
- The textbook cases get the textbook verdict.
"""

from __future__ import annotations

import csv
import io
import subprocess

import pytest

import tcpdiag
from conftest import CORPUS, corpus_captures, corpus_id, run_tcpdiag

FIELDS = ["frame.number", "tcp.analysis.retransmission", "tcp.analysis.fast_retransmission",
          "tcp.analysis.spurious_retransmission", "tcp.analysis.out_of_order", "tcp.analysis.zero_window_probe",
          "tcp.options.sack.dsack", "frame.protocols"]
READABLE = corpus_captures()

# Why a frame may differ from Wireshark's retransmission flag (docs/conformance.md).
REASONS = {
    "duplicate": "the same packet captured twice (same bytes, same IPv4 ID): Wireshark calls the copy a "
                 "retransmission; a retransmission is a new packet",
    "late_original": "its timestamp (or IPv4 ID) is older than the highest segment's: a late original "
                     "(reordering before the capture point), not a retransmission",
    "original_seen": "the original transmission is in the capture (retrans_of): a retransmission, which "
                     "Wireshark's out-of-order timing heuristic (< RTT after the highest segment) misses",
    "below_highest": "data below the highest sequence already sent, original not captured: a "
                     "retransmission by TCP's definition; Wireshark's timing heuristic calls it out-of-order",
    "ack_before_data": "the capture shows the ACK before the data it acknowledges (capture-point order): "
                       "Wireshark calls the data a spurious retransmission; it is the first transmission",
    "keepalive": "a one-byte keep-alive just below SND.UNA while data is outstanding; Wireshark's keep-alive "
                 "test (just below the highest byte sent) fails there and it says retransmission",
}


def tshark_flags(path):
    cmd = ["tshark", "-n", "-r", str(path), "-Y", "tcp", "-T", "fields", "-E", "separator=/t"]
    cmd += [x for f in FIELDS for x in ("-e", f)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600).stdout
    rows = {}
    for line in out.splitlines():
        v = line.split("\t")
        rows[int(v[0])] = dict(zip(FIELDS[1:], v[1:]))
    return rows


def reason(ws: dict, ours: dict) -> str | None:
    ws_rtx = any(ws[k] for k in FIELDS[1:4])
    if ws_rtx and not ours["retrans"]:
        if ours["duplicate"] == "1":
            return "duplicate"
        if ours["reorder_ns"]:
            return "late_original"
        if ours["keepalive"] == "1":
            return "keepalive"
        if ws["tcp.analysis.spurious_retransmission"]:
            return "ack_before_data"
    if ours["retrans"] and not ws_rtx and ws["tcp.analysis.out_of_order"]:
        return "original_seen" if ours["retrans_of"] != "0" else "below_highest"
    return None


@pytest.mark.parametrize("path", READABLE, ids=corpus_id)
def test_dsack_and_retransmissions_match_wireshark(path, tshark):
    ws = tshark_flags(path)
    res = run_tcpdiag("packets", "--analysis", str(path))
    assert res.returncode in (0, 5), res.stderr
    ours = {int(r["frame"]): r for r in csv.DictReader(io.StringIO(res.stdout.decode()))}
    ws = {f: v for f, v in ws.items() if "icmp" not in v["frame.protocols"]}

    ws_dsack = {f for f, v in ws.items() if v["tcp.options.sack.dsack"]}
    our_dsack = {f for f, r in ours.items() if r["dsack"] == "1"}
    assert our_dsack == ws_dsack

    unexplained = []
    for f, r in ours.items():
        w = ws.get(f)
        if w is None:
            continue
        if any(w[k] for k in FIELDS[1:4]) != bool(r["retrans"]) and reason(w, r) is None:
            unexplained.append((f, {k: v for k, v in w.items() if v and k != "frame.protocols"},
                                {k: r[k] for k in ("retrans", "retrans_of", "reorder_ns", "keepalive",
                                                   "zero_window_probe", "duplicate")}))
    assert not unexplained, f"{len(unexplained)} unexplained, first: {unexplained[:4]}"


@pytest.mark.parametrize("rel, expected", [
    ("OISF_suricata-verify/tests/mime/mime-stream-depth/input.pcap", "wscale_missing"),
    ("blitz_tcptrace/input/zwnd.dmp.gz", "zero_window_stall"),
])
def test_textbook_verdicts(rel, expected, corpus):
    a = tcpdiag.analyze(str(corpus / rel))
    main = max(a.verdicts.values(), key=lambda v: v.row["data_bytes"])
    assert main.primary.id == expected, [(f.id, round(f.share, 2)) for f in main.findings]
