"""The diagnosis against the Linux kernel's own truth, on every sample (both capture points).

Each sample in samples/ is real kernel TCP through a link emulator; its truth.json holds
the sender's TCP_INFO series and the verdict derived from the kernel's counters and the
emulator's log (samples/README.md), never from tcpdiag. Here:
- the primary verdict equals the kernel's, and its "also" findings are among ours;
- at the sender, bytes in flight are within 1 MSS of the kernel's packets in flight
  (unacked − sacked − lost + retrans, × MSS) for ≥ 95 % of TCP_INFO samples;
- in cwnd-limited periods (kernel flight ≥ cwnd − 1 and the peer's window not binding)
  the cwnd estimate is within 15 % of snd_cwnd × MSS (median).
The comparisons are benchmarks/accuracy/kernel.py's, shared with the sweep eval.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

import tcpdiag
from conftest import ROOT, SAMPLES

sys.path.insert(0, str(ROOT))
from benchmarks.accuracy import kernel  # noqa: E402  (one definition of the kernel comparisons)

TRUTHS = sorted(SAMPLES.glob("*.truth.json"))

# The kernel-derived verdict names (samples/README.md) → tcpdiag finding ids.
VERDICT_IDS = {
    "rwnd-limited": "rwnd_limited",
    "rwnd-limited:static-buffer": "rwnd_static",
    "rwnd-limited:no-window-scaling": "wscale_missing",
    "rwnd-limited:zero-window": "zero_window_stall",
    "sndbuf-limited": "sndbuf_limited",
    "app-limited": "app_slow_writer",  # the sample's writer pauses on its own clock
    "reorder-limited": "reorder_limited",
    "loss-limited": "loss_limited",
    "slow-start-overshoot": "slow_start_overshoot",
    "bandwidth-limited": "bandwidth_limited",
}


def load(truth_path):
    truth = json.loads(truth_path.read_text())
    return truth, truth_path.name.replace(".truth.json", "")


def main_flow(analysis, truth):
    """The sample's transfer: the flow whose endpoints are the truth's 4-tuple."""
    snd = truth["flow"]["sender"]
    for v in analysis.verdicts.values():
        row = analysis.flows.loc[v.stream]
        ends = {(row.a_addr, row.a_port), (row.b_addr, row.b_port)}
        if (snd["ip"], snd["port"]) in ends:
            return v
    raise AssertionError("sample flow not found")


@pytest.mark.parametrize("side", ["sender", "receiver"])
@pytest.mark.parametrize("truth_path", TRUTHS, ids=lambda p: p.name.split(".")[0])
def test_verdict_equals_kernel_truth(truth_path, side):
    truth, name = load(truth_path)
    a = tcpdiag.analyze(str(SAMPLES / f"{name}.{side}.pcap.gz"))
    v = main_flow(a, truth)
    expected = truth["expected"]
    assert v.primary.id == VERDICT_IDS[expected["verdict"]], [(f.id, round(f.share, 2)) for f in v.findings]
    ours = {f.id for f in v.findings}
    for also in expected["also"]:
        assert VERDICT_IDS[also] in ours, (also, ours)
    assert v.vantage == side


@pytest.mark.parametrize("truth_path", TRUTHS, ids=lambda p: p.name.split(".")[0])
def test_flight_and_cwnd_match_tcp_info_at_sender(truth_path):
    truth, name = load(truth_path)
    a = tcpdiag.analyze(str(SAMPLES / f"{name}.sender.pcap.gz"))
    v = main_flow(a, truth)
    p = a.packets
    p = p[(p.stream == v.stream) & (p.data_dir == v.data_dir)]
    info, mss = truth["tcp_info"]["sender"], truth["flow"]["mss"]
    ts = p["ts"].astype("int64").to_numpy()

    flight = kernel.flight_agreement(ts, p["in_flight"].to_numpy().astype(float), info, mss)
    assert flight["samples"] > 100
    assert flight["within_1mss"] >= 0.95, f"{flight['within_1mss']:.3f} of {flight['samples']} samples within 1 MSS"

    err = kernel.cwnd_errors(ts, p["cwnd"].to_numpy().astype(float), info, mss)
    if len(err) < 5:
        pytest.skip(f"only {len(err)} cwnd-limited TCP_INFO samples")
    assert np.median(err) <= 0.15, f"median cwnd error {np.median(err):.3f} over {len(err)} samples"
