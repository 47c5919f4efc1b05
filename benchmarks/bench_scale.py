#!/usr/bin/env python3
"""Scale benchmarks (issue 7): speed-up of `-j 2` over `-j 1`, and peak memory on a
1M-flow capture and a multi-GB capture. Reports; fails on nothing.

    cargo build --release -p tcpdiag-core --examples
    python3 benchmarks/bench_scale.py --bulk bulk-5m.pcap --scan scan-1m.pcap --big big-20g.pcap

Captures: `bulk-5m.pcap` from `benchmarks/make_captures.py` (real kernel flows, 6.6 M
packets, 120 flows); `scan-1m.pcap` and `big-20g.pcap` from the core's example
`scale_capture` (see docs/scaling.md). Every run goes through GNU time (`%e %U %S %M`);
the 1-minute load average is recorded before each run: on a shared machine compare only
figures taken at similar load.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def examples_dir() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "release" / "examples"


def timed(cmd: list[str]) -> dict:
    load = os.getloadavg()[0]
    t = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", *cmd], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        return {"cmd": cmd, "error": r.stderr.strip().splitlines()[-1:] or ["exit %d" % r.returncode]}
    e, u, s, m = r.stderr.strip().splitlines()[-1].split()
    out = {"cmd": cmd, "wall_s": wall, "user_s": float(u), "sys_s": float(s), "max_rss_mb": int(m) / 1024, "load1": load}
    line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    if line.startswith("{"):
        try:
            out["engine"] = json.loads(line.replace("'", '"'))
        except json.JSONDecodeError:
            out["engine_raw"] = line
    return out


def speedup(run: Path, file: str, repeat: int) -> dict:
    runs: dict[int, list[dict]] = {1: [], 2: []}
    for _ in range(repeat):
        for j in (1, 2):
            runs[j].append(timed([str(run), "-j", str(j), file]))
    best = {j: min(r["wall_s"] for r in rs) for j, rs in runs.items()}
    pairs = [a["wall_s"] / b["wall_s"] for a, b in zip(runs[1], runs[2])]
    return {"file": file, "runs": runs, "best_wall_s": best, "speedup_best": best[1] / best[2],
            "speedup_median_pair": statistics.median(pairs),
            "load1": [r["load1"] for rs in runs.values() for r in rs]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bulk", help="≥5M-packet, ~100-flow capture (speed-up)")
    ap.add_argument("--scan", help="1M-flow capture (memory)")
    ap.add_argument("--big", help="multi-GB capture of real flows (memory)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cli", default=shutil.which("tcpdiag"), help="tcpdiag CLI for the end-to-end rows")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / f"scale-{time.strftime('%Y%m%d-%H%M')}.json"))
    a = ap.parse_args()
    run = examples_dir() / "scale_run"
    if not run.exists():
        sys.exit(f"{run} missing: cargo build --release -p tcpdiag-core --examples")
    res: dict = {"cpus": os.cpu_count(), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    if a.bulk:
        res["speedup"] = s = speedup(run, a.bulk, a.repeat)
        print(f"speed-up -j2/-j1 on {a.bulk}: best {s['speedup_best']:.2f}x "
              f"(j1 {s['best_wall_s'][1]:.2f} s, j2 {s['best_wall_s'][2]:.2f} s), median of pairs "
              f"{s['speedup_median_pair']:.2f}x, load {min(s['load1']):.1f}-{max(s['load1']):.1f}")
        if a.cli:
            res["cli_bulk"] = [timed([a.cli, "analyze", "-j", str(j), a.bulk, "--top", "3"]) for j in (1, 2)]
    mem = []
    for label, f, extra in [("scan-1m", a.scan, []), ("big", a.big, [])]:
        if not f:
            continue
        for j in (1, 2):
            r = timed([str(run), "-j", str(j), *extra, f])
            r["label"] = label
            mem.append(r)
            print(f"{label} -j{j}: peak RSS {r.get('max_rss_mb', float('nan')):.0f} MB, wall {r.get('wall_s', 0):.1f} s, "
                  f"engine {r.get('engine', r.get('error'))}")
    if a.scan and a.cli:
        with tempfile.TemporaryDirectory() as csv_dir:    # --csv takes a directory
            r = timed([a.cli, "analyze", a.scan, "--top", "3", "--csv", csv_dir])
        r["label"] = "scan-1m CLI (pandas table of 1M rows)"
        mem.append(r)
        print(f"CLI on scan-1m: peak RSS {r.get('max_rss_mb', float('nan')):.0f} MB, wall {r.get('wall_s', 0):.1f} s")
    res["memory"] = mem
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1))
    print(f"→ {a.out}")


if __name__ == "__main__":
    main()
