#!/usr/bin/env python3
"""Accuracy of the diagnosis per sample scenario, and the cost of the full analysis.

    python3 benchmarks/bench_engine.py                          # accuracy on samples/
    python3 benchmarks/bench_engine.py --speed benchmarks/data/bulk-5m.pcap

Accuracy (against the kernel's TCP_INFO and the truth's verdict, as tests/test_engine_samples.py
asserts them): per scenario and capture point, the primary verdict, the share of TCP_INFO
samples where bytes in flight are within 1 MSS, and the median cwnd error in cwnd-limited
periods. Speed: best-of-N wall and CPU of `tcpdiag flows` (ingest, decode, flow table)
and of the full analysis on the same capture, their ratio and peak memory. Reports only;
never fails on speed. JSON goes to benchmarks/results/engine-<date>.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import tcpdiag  # noqa: E402
from benchmarks.accuracy import kernel  # noqa: E402
from test_engine_samples import VERDICT_IDS, main_flow  # noqa: E402


def accuracy() -> list[dict]:
    rows = []
    for truth_path in sorted((ROOT / "samples").glob("*.truth.json")):
        truth = json.loads(truth_path.read_text())
        name = truth_path.name.replace(".truth.json", "")
        for side in ("sender", "receiver"):
            a = tcpdiag.analyze(str(ROOT / "samples" / f"{name}.{side}.pcap.gz"))
            v = main_flow(a, truth)
            row = {"scenario": name, "side": side, "expected": VERDICT_IDS[truth["expected"]["verdict"]],
                   "verdict": v.primary.id, "vantage": v.vantage}
            if side == "sender":
                p = a.packets
                p = p[(p.stream == v.stream) & (p.data_dir == v.data_dir)]
                info, mss = truth["tcp_info"]["sender"], truth["flow"]["mss"]
                ts = p["ts"].astype("int64").to_numpy()
                fl = kernel.flight_agreement(ts, p["in_flight"].to_numpy().astype(float), info, mss)
                row["flight_within_1mss"] = fl["within_1mss"]
                err = kernel.cwnd_errors(ts, p["cwnd"].to_numpy().astype(float), info, mss)
                if len(err):
                    row["cwnd_median_error"] = float(np.median(err))
                    row["cwnd_limited_samples"] = int(len(err))
            rows.append(row)
    return rows


def timed(cmd: list[str]) -> tuple[float, float, int]:
    with tempfile.NamedTemporaryFile("r") as f:
        subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", f.name, *cmd], check=True,
                       stdout=subprocess.DEVNULL)
        wall, user, sys_, rss = f.read().split()[-4:]
    return float(wall), float(user) + float(sys_), int(rss) * 1024


def speed(capture: str, repeat: int) -> dict:
    exe = str(Path(sys.executable).parent / "tcpdiag")
    cmds = {
        "ingest (tcpdiag flows)": [exe, "flows", "--format", "csv", "-o", os.devnull, capture],
        "full analysis": [sys.executable, "-c", "import sys, tcpdiag; tcpdiag.analyze(sys.argv[1])", capture],
        "full analysis -j 2": [sys.executable, "-c", "import sys, tcpdiag; tcpdiag.analyze(sys.argv[1], jobs=2)",
                               capture],
    }
    out = {"capture": capture, "load": os.getloadavg()[0]}
    for name, cmd in cmds.items():
        runs = [timed(cmd) for _ in range(repeat)]
        best = min(runs)
        out[name] = {"wall_s": best[0], "cpu_s": best[1], "peak_rss_mb": best[2] / 1e6}
    base = out["ingest (tcpdiag flows)"]
    full = out["full analysis"]
    out["analysis_over_ingest_wall"] = full["wall_s"] / base["wall_s"]
    out["analysis_over_ingest_cpu"] = full["cpu_s"] / base["cpu_s"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--speed", metavar="CAPTURE", help="also time ingest vs full analysis on this capture")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    doc = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "accuracy": accuracy()}
    print("| scenario | side | expected | verdict | flight ±1 MSS | cwnd median error |")
    print("|---|---|---|---|---:|---:|")
    for r in doc["accuracy"]:
        ok = "" if r["verdict"] == r["expected"] else " ✗"
        fl = f"{r['flight_within_1mss']:.3f}" if "flight_within_1mss" in r else ""
        cw = f"{r['cwnd_median_error']:.3f} (n={r['cwnd_limited_samples']})" if "cwnd_median_error" in r else ""
        print(f"| {r['scenario']} | {r['side']} | {r['expected']} | {r['verdict']}{ok} | {fl} | {cw} |")
    if args.speed:
        s = doc["speed"] = speed(args.speed, args.repeat)
        print(f"\n{s['capture']} (load {s['load']:.2f})")
        for name in ("ingest (tcpdiag flows)", "full analysis", "full analysis -j 2"):
            x = s[name]
            print(f"  {name:24s} wall {x['wall_s']:.2f} s  cpu {x['cpu_s']:.2f} s  peak {x['peak_rss_mb']:.0f} MB")
        print(f"  full analysis ÷ ingest: {s['analysis_over_ingest_wall']:.2f}× wall, "
              f"{s['analysis_over_ingest_cpu']:.2f}× CPU")
    out = ROOT / "benchmarks" / "results" / f"engine-{datetime.date.today().isoformat()}.json"
    out.write_text(json.dumps(doc, indent=1))
    print(f"\nJSON: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
