#!/usr/bin/env python3
"""Issue #13: the full analysis at the speed of reading. One run times, on the two bulk
captures, `tcpdiag analyze` with one and two threads, `tcpdiag flows`, `tcptrace -n -l` and
`tshark -n -q -z conv,tcp`, and writes medians, ratios and peak memory.

    python3 benchmarks/bench_speed.py                         # bulk-5m and bulk-1m, 5 rounds
    python3 benchmarks/bench_speed.py --before /work/speed-before/tcpdiag   # paired A/B
    python3 benchmarks/bench_speed.py --quick                 # CI smoke: 20k packets, 1 round

Paired rounds: every round runs each command once, one after another (never concurrently),
and with --before the old build runs right before the new one, so both see the same load.
Per command: median wall time, median user+sys CPU time, peak RSS (largest over the rounds,
GNU time `%M`), packets/s from both medians, and the 1-minute load average before every run.
On a shared machine CPU time is the figure to compare; wall time only when the load stayed
low. Ratios: tcptrace's and tshark's median over tcpdiag's (how many times faster, wall and
CPU), `-j 2` over `-j 1`, and before over after. A baseline whose first run exceeds
--single-run-over seconds runs once (tshark on bulk-5m: ~50 s and ~3.5 GB).

Markdown to stdout; JSON (every run) to benchmarks/results/speed-<date>.json, Markdown beside
it. The timing harness (one timed run under GNU time, packet counts, the quick capture) is
bench_flows.py's. Benchmarks report; they never fail on speed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shlex
import statistics
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_flows import (  # noqa: E402
    DATA, RESULTS, Run, build_argv, capture_packets, ensure_gnu_time, installed, machine, quick_capture,
    time_once, tool_version,
)

CAPTURES = ("bulk-5m.pcap", "bulk-1m.pcap")
#: What tcpdiag is asked; "{tcpdiag}" is the executable (new or --before build).
MODES = {
    "analyze -j1": "{tcpdiag} analyze --json --all {file}",
    "analyze -j2": "{tcpdiag} analyze --json --all -j 2 {file}",
    "flows": "{tcpdiag} flows {file} --format csv",
}
BASELINES = {
    "tcptrace": "tcptrace -n -l {file}",
    "tshark": "tshark -n -q -r {file} -z conv,tcp",
}


@dataclass
class Series:
    """The runs of one command on one capture."""

    capture: str
    label: str  # e.g. "analyze -j1", "analyze -j1 (before)", "tcptrace"
    cmd: str
    packets: int
    runs: list[Run] = field(default_factory=list)
    status: str = "ok"
    error: str = ""

    def ok(self) -> list[Run]:
        return [r for r in self.runs if r.exit == 0]

    def wall(self) -> float | None:
        ok = self.ok()
        return statistics.median(r.wall_s for r in ok) if ok else None

    def cpu(self) -> float | None:
        ok = self.ok()
        return statistics.median(r.user_s + r.sys_s for r in ok) if ok else None

    def rss_mb(self) -> float | None:
        ok = self.ok()
        return max(r.max_rss_kb for r in ok) / 1024 if ok else None

    def summary(self) -> dict:
        d = {"capture": self.capture, "label": self.label, "cmd": self.cmd, "status": self.status,
             "packets": self.packets, "runs": [asdict(r) for r in self.runs]}
        if self.error:
            d["error"] = self.error
        w, c = self.wall(), self.cpu()
        if w is not None:
            d.update(median_wall_s=round(w, 3), median_cpu_s=round(c, 3), peak_rss_mb=round(self.rss_mb(), 1),
                     pkts_per_s_wall=round(self.packets / w) if w else None,
                     pkts_per_s_cpu=round(self.packets / c) if c else None,
                     load1=[r.load1 for r in self.runs])
        return d


def run_round(s: Series, argv: list[str], args: argparse.Namespace, gnu_time: bool) -> None:
    if s.status != "ok":
        return
    if s.ok() and s.ok()[0].wall_s > args.single_run_over:
        return  # a slow baseline: one run is its measurement
    try:
        run, err = time_once(argv, args.timeout, gnu_time)
    except subprocess.TimeoutExpired:
        s.status = f"timeout ({args.timeout:.0f} s)"
        return
    s.runs.append(run)
    if run.exit != 0:
        s.status = f"failed (exit {run.exit})"
        s.error = err.strip()[-400:]
        return
    print(f"  {s.label:<24} {run.wall_s:7.3f} s wall {run.user_s + run.sys_s:7.3f} s cpu "
          f"{run.max_rss_kb / 1024:7.1f} MB  load {run.load1:.2f}", file=sys.stderr, flush=True)


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def ratios(series: list[Series]) -> dict:
    """Per capture: baselines over tcpdiag (wall and CPU), -j2 over -j1, before over after."""
    out: dict[str, dict] = {}
    for cap in dict.fromkeys(s.capture for s in series):
        by = {s.label: s for s in series if s.capture == cap}
        r: dict[str, float | None] = {}
        for mode in MODES:
            for suffix in ("", " (before)"):
                me = by.get(mode + suffix)
                if me is None:
                    continue
                for base in BASELINES:
                    b = by.get(base)
                    if b is not None:
                        r[f"{base} / {mode}{suffix} (wall)"] = ratio(b.wall(), me.wall())
                        r[f"{base} / {mode}{suffix} (cpu)"] = ratio(b.cpu(), me.cpu())
            before, after = by.get(mode + " (before)"), by.get(mode)
            if before and after:
                r[f"before / after {mode} (wall)"] = ratio(before.wall(), after.wall())
                r[f"before / after {mode} (cpu)"] = ratio(before.cpu(), after.cpu())
        for suffix in ("", " (before)"):
            j1, j2 = by.get("analyze -j1" + suffix), by.get("analyze -j2" + suffix)
            if j1 and j2:
                r[f"-j1 / -j2{suffix} (wall)"] = ratio(j1.wall(), j2.wall())
        out[cap] = {k: (round(v, 2) if v is not None else None) for k, v in r.items()}
    return out


def fmt(x: float | None, spec: str) -> str:
    return "–" if x is None else format(x, spec)


def markdown(series: list[Series], rat: dict) -> str:
    lines = ["| capture | packets | command | median wall s | median CPU s | pkts/s (wall) | pkts/s (CPU) "
             "| peak RSS MB | runs | load (min–max) | status |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for s in series:
        w, c = s.wall(), s.cpu()
        loads = [r.load1 for r in s.runs]
        lines.append(" | ".join([
            f"| {s.capture}", f"{s.packets:,}", s.label, fmt(w, ".3f"), fmt(c, ".3f"),
            fmt(s.packets / w if w else None, ",.0f"), fmt(s.packets / c if c else None, ",.0f"),
            fmt(s.rss_mb(), ",.1f"), str(len(s.runs)),
            f"{min(loads):.1f}–{max(loads):.1f}" if loads else "–",
            s.status + (f": {s.error.splitlines()[-1][:60]}" if s.error else "") + " |"]))
    lines += ["", "| capture | ratio | value |", "|---|---|---:|"]
    for cap, r in rat.items():
        lines += [f"| {cap} | {k} | {fmt(v, '.2f')}× |" for k, v in r.items()]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA, help="folder of captures (default benchmarks/data)")
    ap.add_argument("--files", default=",".join(CAPTURES), help="comma-separated names in --data (default: %(default)s)")
    ap.add_argument("--tcpdiag", default="tcpdiag", help="the tcpdiag executable (default: on PATH)")
    ap.add_argument("--before", help="an older tcpdiag executable, run paired with --tcpdiag")
    ap.add_argument("--modes", default=",".join(MODES), help="tcpdiag commands (default: %(default)s)")
    ap.add_argument("--baselines", default=",".join(BASELINES), help="default: %(default)s; '' for none")
    ap.add_argument("--rounds", type=int, default=5, help="paired rounds; medians are over them")
    ap.add_argument("--single-run-over", type=float, default=20.0,
                    help="a command whose first run takes longer than this runs once")
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--quick", action="store_true", help="CI smoke: one 20k-packet capture, one round")
    ap.add_argument("--out", type=Path, help="JSON path (default results/speed-<date>.json; --quick: data/speed-quick.json)")
    args = ap.parse_args()

    gnu_time = ensure_gnu_time()
    if args.quick:
        captures, args.rounds = [quick_capture()], 1
    else:
        captures = [args.data / f for f in args.files.split(",") if f]
    missing = [str(c) for c in captures if not c.exists()]
    if missing:
        sys.exit(f"no capture: {', '.join(missing)} (run: sudo python3 benchmarks/make_captures.py)")

    subjects = [("", args.tcpdiag)] + ([(" (before)", args.before)] if args.before else [])
    started = dt.datetime.now().astimezone()
    series: list[Series] = []
    for cap in captures:
        packets = capture_packets(cap)
        print(f"{cap.name}: {packets:,} packets, {cap.stat().st_size / 1e6:.1f} MB", file=sys.stderr)
        plan: list[tuple[Series, list[str]]] = []
        for mode in [m for m in args.modes.split(",") if m]:
            # The old build first, then the new one: each pair sees the same load.
            for suffix, exe in reversed(subjects):
                argv = build_argv(MODES[mode].replace("{tcpdiag}", shlex.quote(exe)), cap)
                plan.append((Series(cap.name, mode + suffix, shlex.join(argv), packets), argv))
        for base in [b for b in args.baselines.split(",") if b]:
            argv = build_argv(BASELINES[base], cap)
            plan.append((Series(cap.name, base, shlex.join(argv), packets), argv))
        for s, argv in plan:
            if not installed(argv):
                s.status = "not installed"
        for i in range(args.rounds):
            print(f" round {i + 1}/{args.rounds}", file=sys.stderr)
            for s, argv in plan:
                run_round(s, argv, args, gnu_time)
        series += [s for s, _ in plan]

    rat = ratios(series)
    table = markdown(series, rat)
    print(table)
    doc = {
        "benchmark": "speed", "started": started.isoformat(timespec="seconds"),
        "finished": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": machine(), "gnu_time": gnu_time, "rounds": args.rounds,
        "versions": {"tshark": tool_version("tshark", "--version"), "tcptrace": tool_version("tcptrace", "-v"),
                     "tcpdiag": tool_version(args.tcpdiag, "--version")},
        "captures": {c.name: {"bytes": c.stat().st_size, "packets": capture_packets(c)} for c in captures},
        "results": [s.summary() for s in series], "ratios": rat, "markdown": table,
    }
    out = args.out or (DATA / "speed-quick.json" if args.quick else RESULTS / f"speed-{started:%Y-%m-%d}.json")
    if out.exists() and not args.out and not args.quick:
        out = RESULTS / f"speed-{started:%Y-%m-%d-%H%M%S}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    out.with_suffix(".md").write_text(table + "\n")
    print(f"\nJSON: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
