"""What every report must respect, whatever the capture: a property test over every sample,
every committed sweep run and every readable capture of ../shared/corpus.

- every share is in [0, 1] and the busy-time shares sum to at most 1;
- no observed rate above its own ceiling beyond measurement noise;
- a ceiling only from an end-to-end RTT; no BDP of 0 B stated for a flow that moved data;
- no sentence that contradicts its numbers (a window stated as a share of another; "no
  limit state dominated" beside a state that held half the busy time);
- a secondary finding only with its own evidence above its threshold;
- no sentence with a figure the capture could not give ("?"): its clause is left out.
"""

from __future__ import annotations

import pytest

import tcpdiag
from conftest import SAMPLES, corpus_captures, corpus_id

CAPTURES = sorted(SAMPLES.glob("*.pcap.gz")) + sorted(SAMPLES.glob("sweep/*/*.pcap.gz"))
#: A ceiling may be exceeded by this much: goodput and the window's RTT are measured over
#: different spans of the transfer.
NOISE = 1.10
SHARES = ("share_rwnd", "share_zero_window", "share_recovery", "share_cwnd", "share_sndbuf", "share_app")


def check(a: tcpdiag.Analysis) -> list[str]:
    bad = []
    findings = {}
    for f in a.finding_table.to_pylist():
        findings.setdefault(f["stream"], []).append(f)
    for row in a.flow_table.select([c for c in a.flow_table.column_names if c != "start"]).to_pylist():
        s = row["stream"]
        where = f"flow {s}"
        shares = [row[k] for k in SHARES]
        if "?" in row["transfer_line"]:
            bad.append(f"{where}: a transfer line with a figure it does not have ({row['transfer_line']})")
        if any(not 0.0 <= x <= 1.0 for x in shares):
            bad.append(f"{where}: a share outside [0, 1]: {shares}")
        if sum(shares) > 1.0 + 1e-6:
            bad.append(f"{where}: busy shares sum to {sum(shares):.3f}")
        for rank, f in enumerate(findings.get(s, [])):
            if not 0.0 <= f["share"] <= 1.0:
                bad.append(f"{where}: {f['id']} explains {f['share']:.2f} of the time")
            values = {v["name"]: v["number"] for v in f["values"]}
            if "?" in f["message"] + f["remedy"]:
                bad.append(f"{where}: {f['id']} states a figure it does not have ({f['message']})")
            if f["id"] == "sndbuf_limited" and values.get("rwnd") is not None and values["flight"] >= values["rwnd"]:
                bad.append(f"{where}: a flight said to be below a window it is not under ({f['message']})")
            if f["id"] == "rwnd_slow_reader" and values.get("peak"):
                # "{rwnd} open on average, {fill} of the {peak} advertised before": the two
                # windows' ratio is that share (a ratio of means against a mean of ratios:
                # within a factor of two, or 0.1).
                ratio = values["rwnd"] / values["peak"]
                if abs(ratio - values["fill"]) > 0.1 and not 0.5 <= ratio / max(values["fill"], 1e-9) <= 2:
                    bad.append(f"{where}: a window stated as {values['fill']:.0%} of a peak it is "
                               f"{ratio:.0%} of ({f['message']})")
            # A secondary finding only with its own evidence.
            if rank > 0 and f["id"] == "loss_limited" and not values.get("loss"):
                bad.append(f"{where}: also loss_limited with no genuine loss ({f['message']})")
            if rank > 0 and f["id"] == "reorder_limited" and not values.get("spurious"):
                bad.append(f"{where}: also reorder_limited without a spurious retransmission")
        if row["verdict"] == "not_limited" and "dominated" in row["message"] and max(shares) >= 0.5:
            bad.append(f"{where}: no limit state said to dominate, yet one held {max(shares):.0%} of the busy time")
        ceiling = row["ceiling_bps"]
        if ceiling is not None and row["goodput_bps"] > NOISE * ceiling:
            bad.append(f"{where}: goodput {row['goodput_bps']:.0f} bit/s above its own ceiling {ceiling:.0f}")
        if row["ceiling_min_rtt_ms"] is not None and not row["ceiling_min_rtt_ms"] > 0:
            bad.append(f"{where}: a ceiling from a round trip of {row['ceiling_min_rtt_ms']} ms")
        if row["verdict"] in ("not_limited", "app_limited", "app_request_response", "app_slow_writer") and row["ceiling_lines"]:
            bad.append(f"{where}: ceiling arithmetic for a flow the path did not limit ({row['verdict']})")
        if row["verdict"] != "not_limited" and row["ceiling_rtt_ms"] is None and row["ceiling_bps"] is not None:
            bad.append(f"{where}: a ceiling without an end-to-end RTT")
    return bad


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.name.replace(".pcap.gz", ""))
def test_invariants_hold_on_every_sample(path):
    assert check(tcpdiag.analyze(str(path))) == []


@pytest.mark.parametrize("path", corpus_captures(), ids=corpus_id)
def test_invariants_hold_on_every_corpus_capture(path):
    try:
        a = tcpdiag.analyze(str(path), errors="warn")
    except tcpdiag.CaptureError as e:
        pytest.skip(f"not readable: {e}")
    assert check(a) == []
