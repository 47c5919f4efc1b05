#!/usr/bin/env python3
"""Conversion speed of Windows ETL traces to pcapng (`tcpdiag convert`), in MB/s of ETL input.

    python3 benchmarks/bench_etl.py                    # corpus traces + a synthetic large one
    python3 benchmarks/bench_etl.py --files a.etl b.etl --repeat 5

Per trace and mode (default: one copy per packet; `--compat etl2pcapng`: every copy, two
passes as that tool makes): best wall time of --repeat in-process conversions through
`tcpdiag.etl.convert` (no interpreter start-up), MB/s of the .etl file, packets/s written.
The synthetic trace (`tests/etlbuild.py`, a PktMon TCP transfer with TCPIP events, every
packet logged twice, Plain-LZ77 buffers) is built in a temporary folder. Markdown to stdout,
JSON to benchmarks/results/etl-<date>.json. Benchmarks report; they never fail on speed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
CORPUS = Path(os.environ.get("TCPDIAG_CORPUS", ROOT.parent / "shared" / "corpus")) / "etl"


def best_of(fn, repeat: int) -> tuple[float, dict]:
    best, res = float("inf"), {}
    for _ in range(repeat):
        t = time.perf_counter()
        res = fn()
        best = min(best, time.perf_counter() - t)
    return best, res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", nargs="*", type=Path, help="ETL traces (default: the corpus traces)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--synthetic-segments", type=int, default=10_000,
                    help="data segments in the synthetic trace (0: none)")
    args = ap.parse_args()
    import tcpdiag.etl

    files = list(args.files or (sorted(CORPUS.glob("*.etl")) if CORPUS.is_dir() else []))
    tmp = Path(tempfile.mkdtemp(prefix="bench-etl-"))
    if args.synthetic_segments:
        sys.path.insert(0, str(ROOT / "tests"))
        import etlbuild

        synth = tmp / f"synthetic_{args.synthetic_segments}.etl"
        synth.write_bytes(etlbuild.tcp_transfer_trace(True, args.synthetic_segments))
        files.append(synth)
    rows = []
    print("| trace | MB | mode | packets | best s | MB/s | packets/s |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for f in files:
        mb = f.stat().st_size / 1e6
        for mode, kw in (("default", {}), ("all copies", {"component": "all"}), ("etl2pcapng", {"compat": "etl2pcapng"})):
            out = tmp / "out.pcapng"
            secs, res = best_of(lambda: tcpdiag.etl.convert(str(f), str(out), errors="return", **kw), args.repeat)
            row = {"trace": f.name, "mb": round(mb, 3), "mode": mode, "packets": res["frames"], "seconds": round(secs, 4),
                   "mb_per_s": round(mb / secs, 1), "packets_per_s": round(res["frames"] / secs)}
            rows.append(row)
            print(f"| {f.name} | {mb:.2f} | {mode} | {res['frames']} | {secs:.3f} | {mb / secs:.1f} | "
                  f"{res['frames'] / secs:,.0f} |")
    RESULTS.mkdir(exist_ok=True)
    doc = {"date": dt.datetime.now().isoformat(timespec="seconds"), "load1": os.getloadavg()[0], "runs": rows}
    (RESULTS / f"etl-{dt.date.today()}.json").write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
