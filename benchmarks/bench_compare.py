#!/usr/bin/env python3
"""`tcpdiag compare` against analysing both captures, on two 1M-packet captures of the same
transfers.

    python3 benchmarks/bench_compare.py                          # runs of /work/sweep-data/tuning
    python3 benchmarks/bench_compare.py --sweep DIR --json out.json

The captures are built from real kernel TCP transfers: the largest runs of a sweep directory
(samples/sweep/SEEDS.md; each run holds `sender.pcap.gz` and `receiver.pcap.gz`, captured at
the two ends of the emulated path) are merged, each run started 0.3 s after the previous one
(so up to dozens of flows overlap), until both merged captures hold at least 1,000,000
packets: `data/compare-1m.sender.pcap` and `data/compare-1m.receiver.pcap` (+ .meta.json
naming the runs). Runs whose client address and port repeat an earlier run's are left out, and
so are the loss, overshoot and reorder stories: on their long lossy flows the single-capture
analysis itself takes minutes per 100k packets today (analyse::sender::Sender::pipe), which
`compare` runs too, so they would measure that, not the comparison.

Each command runs in its own process, three times; the best wall time and the peak RSS
(`ru_maxrss` of the child) are reported: `analyze A`, `analyze B`, `compare A B` (--json to
/dev/null, so all the work is done and nothing is printed). The ratio is compare's time over
the sum of the two analyses. Nothing fails on speed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pcaprw  # noqa: E402

DATA = HERE / "data"
TARGET = 1_000_000
STAGGER_NS = 300_000_000
SKIP_STORIES = ("loss", "slow-start-overshoot", "reorder")
RECIPE = {"target": TARGET, "stagger_ns": STAGGER_NS, "skip_stories": list(SKIP_STORIES), "version": 2}
SIDES = ("sender", "receiver")


def out_path(side: str, target: int = TARGET) -> Path:
    name = "compare-1m" if target == TARGET else f"compare-{target}"
    return DATA / f"{name}.{side}.pcap"


def pick_runs(sweep: Path, target: int = TARGET) -> list[Path]:
    """The largest runs, distinct client endpoints, until each side reaches TARGET packets."""
    runs = []
    for t in sweep.glob("*/truth.json"):
        truth = json.loads(t.read_text())
        caps = truth.get("captures", {})
        if not all((t.parent / f"{s}.pcap.gz").exists() for s in SIDES) or "sender" not in caps:
            continue
        if truth.get("drawn", {}).get("story") in SKIP_STORIES or truth.get("drawn", {}).get("mixture"):
            continue
        runs.append((min(caps[s]["packets"] for s in SIDES), tuple(caps["sender"]["as_seen"]["sender"]), t.parent))
    runs.sort(key=lambda r: (-r[0], r[2].name))
    chosen, seen, total = [], set(), 0
    for n, client, d in runs:
        if total >= target:
            break
        if client in seen:
            continue
        seen.add(client)
        chosen.append(d)
        total += n
    return sorted(chosen, key=lambda d: d.name)


def _shifted(path: Path, shift_ns: int, tmpdir: Path):
    plain = tmpdir / (path.parent.name + "." + path.name[:-3])
    with gzip.open(path, "rb") as src, open(plain, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    hdr, pkts = pcaprw.read_packets(str(plain))
    assert hdr.nanos, path
    return hdr, (pcaprw.Packet(p.ts + shift_ns, p.origlen, p.data) for p in pkts)


def build(sweep: Path, target: int = TARGET) -> dict:
    """Writes both merged captures (see the module doc) unless they exist for this recipe."""
    recipe = dict(RECIPE, target=target)
    meta = out_path("sender", target).with_name(out_path("sender", target).name.replace(".sender.pcap", ".meta.json"))
    if all(out_path(s, target).exists() for s in SIDES) and meta.exists() \
            and json.loads(meta.read_text()).get("recipe") == recipe:
        return json.loads(meta.read_text())
    runs = pick_runs(sweep, target)
    DATA.mkdir(parents=True, exist_ok=True)
    out = {"recipe": recipe, "runs": [d.name for d in runs], "sweep": str(sweep)}
    with tempfile.TemporaryDirectory() as tmp:
        for side in SIDES:
            streams, base, hdr = [], None, None
            for i, d in enumerate(runs):
                first = json.loads((d / "truth.json").read_text())["captures"][side]["first_ns"]
                base = first if base is None else base
                h, it = _shifted(d / f"{side}.pcap.gz", base + i * STAGGER_NS - first, Path(tmp))
                hdr = hdr or h
                streams.append(it)
            assert hdr is not None
            with pcaprw.PcapWriter(str(out_path(side, target)), hdr) as w:
                for p in pcaprw.merge_by_time(streams):
                    w.write(p)
                out[f"{side}_packets"] = w.packets
    meta.write_text(json.dumps(out, indent=1))
    return out


def measure(args: list[str], repeat: int) -> dict:
    """Best wall time and peak RSS of `tcpdiag args…` over `repeat` runs, each its own process."""
    exe = [sys.executable, "-m", "tcpdiag.cli"]
    best, rss = None, 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            with open(os.devnull, "wb") as null:
                os.dup2(null.fileno(), 1)
            os.execv(exe[0], exe + args)
        _, status, usage = os.wait4(pid, 0)
        dt = time.perf_counter() - t0
        assert os.waitstatus_to_exitcode(status) == 0, (args, status)
        best = dt if best is None else min(best, dt)
        rss = max(rss, usage.ru_maxrss * 1024)
    return {"seconds": best, "peak_rss_bytes": rss}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sweep", type=Path, default=Path("/work/sweep-data/tuning"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--target", type=int, default=TARGET, help="packets per capture (default 1,000,000)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if not args.sweep.is_dir():
        print(f"skipped: no sweep directory at {args.sweep}")
        return 0
    made = build(args.sweep, args.target)
    A, B = out_path("sender", args.target), out_path("receiver", args.target)
    res = {
        "a": str(A), "b": str(B), "captures": made,
        "analyze_a": measure(["analyze", str(A), "--json"], args.repeat),
        "analyze_b": measure(["analyze", str(B), "--json"], args.repeat),
        "compare": measure(["compare", str(A), str(B), "--json"], args.repeat),
    }
    both = res["analyze_a"]["seconds"] + res["analyze_b"]["seconds"]
    res["ratio_to_analysing_both"] = res["compare"]["seconds"] / both
    for k in ("analyze_a", "analyze_b", "compare"):
        m = res[k]
        print(f"{k:>10}: {m['seconds']:7.2f} s  peak RSS {m['peak_rss_bytes'] / 2**20:8.1f} MiB")
    print(f"compare / (analyze A + analyze B) = {res['ratio_to_analysing_both']:.2f}")
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
