#!/usr/bin/env python3
"""Cost of the Wireshark plugin on every tshark the tests use (tests/tsharks.py: the
host's 4.0 and the chroots' 4.4 / 4.6): tshark with the plugin and the capture's
annotations against the same tshark command without the plugin, on one large capture.

    python3 benchmarks/bench_plugin.py                    # all samples appended (~130k frames)
    python3 benchmarks/bench_plugin.py --copies 4 --repeat 3
    python3 benchmarks/bench_plugin.py --capture big.pcap --tsharks host,trixie
    python3 benchmarks/bench_plugin.py --plugin OLD.lua   # another plugin file (before/after)

Modes, each without and with the plugin, best of --repeat: `loaded` (-T fields with a few
TCP fields, the same command with the plugin loaded: what it costs everyone once
installed), `fields` (the same, with four of the plugin's fields too: what scripts do),
`analysis` (the plugin's fields vs Wireshark's own tcp.analysis fields: the like-for-like
question), `two-pass` (-2 -R tcp -q) and `verbose` (-V, the full tree as the GUI builds it
for the selected packet). `tcpdiag wireshark annotate` runs once per capture;
its time is reported on its own and added in the "incl. annotate" ratio. Times are CPU
seconds (user + system, from getrusage: tshark is single-threaded, and CPU time is what
other jobs on a shared machine disturb least); wall times go to the JSON too. Every tshark
runs as the unprivileged test user (the runner's start, a few ms, is in both columns).
Markdown to stdout, JSON to benchmarks/results/plugin-<date>[-label].json. Benchmarks
report; they never fail on speed (target: overhead <= 2x).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))
import tsharks  # noqa: E402

RESULTS = HERE / "results"
PLUGIN = ROOT / "wireshark-plugin" / "tcpdiag.lua"

BASE_FIELDS = ["frame.number", "tcp.stream", "tcp.len"]
PLUGIN_FIELDS = ["tcpdiag.rwnd", "tcpdiag.in_flight", "tcpdiag.limit", "tcpdiag.flow.verdict"]
ANALYSIS_PLUGIN = ["tcpdiag.rwnd", "tcpdiag.in_flight", "tcpdiag.cwnd", "tcpdiag.limit", "tcpdiag.retrans",
                   "tcpdiag.dsack", "tcpdiag.rtt_ns"]
ANALYSIS_WIRESHARK = ["tcp.window_size", "tcp.analysis.bytes_in_flight", "tcp.analysis.retransmission",
                      "tcp.analysis.ack_rtt", "tcp.options.sack.dsack", "tcp.analysis.zero_window"]


def _e(fields: list[str]) -> list[str]:
    return [x for f in fields for x in ("-e", f)]


#: mode → (arguments without the plugin, extra arguments with it)
MODES = {
    "loaded": (["-T", "fields", *_e(BASE_FIELDS)], []),
    "fields": (["-T", "fields", *_e(BASE_FIELDS)], _e(PLUGIN_FIELDS)),
    "analysis": (["-T", "fields", "-e", "frame.number", *_e(ANALYSIS_WIRESHARK)], None),
    "two-pass": (["-2", "-R", "tcp", "-q"], []),
    "verbose": (["-V"], []),
}


def tcpdiag_exe() -> list[str]:
    """The tcpdiag beside this Python, else the one on PATH (tools/env.sh puts it in .venv)."""
    script = Path(sys.executable).parent / "tcpdiag"
    found = str(script) if script.exists() else shutil.which("tcpdiag") or str(ROOT / ".venv" / "bin" / "tcpdiag")
    return [found]


def build_capture(out: Path, copies: int) -> Path:
    """Every sample appended, `copies` times (frames renumbered, flows kept apart)."""
    samples = sorted((ROOT / "samples").glob("*.pcap.gz")) * copies
    subprocess.run(["mergecap", "-a", "-F", "pcap", "-w", str(out), *map(str, samples)], check=True)
    return out


def run(cmd: list[str]) -> tuple[float, float]:
    """CPU seconds (user + system) and wall seconds; output discarded."""
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0 or "Lua" in res.stderr:
        raise RuntimeError(f"{' '.join(cmd)}: {res.stderr.strip()[-500:]}")
    return r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime, wall


def best(cmd: list[str], repeat: int) -> tuple[float, float]:
    """The least CPU time of `repeat` runs, and the least wall time."""
    runs = [run(cmd) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--capture", type=Path, help="capture to use (default: the samples appended)")
    ap.add_argument("--copies", type=int, default=1, help="times the samples are appended (default 1)")
    ap.add_argument("--repeat", type=int, default=2, help="runs per measurement; the best counts (default 2)")
    ap.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
    ap.add_argument("--tsharks", help="comma-separated names (default: every one tests/tsharks.py finds)")
    ap.add_argument("--plugin", type=Path, default=PLUGIN, help="plugin file (default: wireshark-plugin/)")
    ap.add_argument("--annotations", type=Path, help="an annotations file made before (for --plugin OLD.lua: "
                    "its format); `annotate` is then not run, and not counted")
    ap.add_argument("--label", default="", help="recorded with the results (e.g. 'before')")
    args = ap.parse_args()
    found, missing = tsharks.discover()
    if args.tsharks:
        found = tuple(t for t in found if t.name in args.tsharks.split(","))
    for name, why in missing:
        print(f"  skipped {name}: {why}", file=sys.stderr)
    if not found:
        print("no tshark to measure", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        capture = args.capture or build_capture(Path(tmp) / "samples.pcap", args.copies)
        frames = int(subprocess.run(["capinfos", "-c", "-M", "-T", str(capture)], capture_output=True,
                                    text=True).stdout.split("\n")[1].split("\t")[-1])
        if args.annotations:
            annotations, t_annotate, w_annotate = tsharks.stage(args.annotations), 0.0, 0.0
        else:
            annotations = tsharks.scratch("annotations.lua")
            t_annotate, w_annotate = best([*tcpdiag_exe(), "wireshark", "annotate", str(capture), "-o",
                                           str(annotations)], args.repeat)
        print(f"  tcpdiag wireshark annotate: {t_annotate:.2f} s", file=sys.stderr)
        staged, plugin = tsharks.stage(capture), tsharks.stage(args.plugin)
        with_plugin = ["-X", f"lua_script:{plugin}", "-X", f"lua_script1:annotations={annotations}"]
        rows = []
        for ts in found:
            for mode in args.modes.split(","):
                base, extra = MODES[mode]
                common = [*ts.argv(), "-n", "-r", str(staged)]
                t0, w0 = best(common + base, args.repeat)
                if extra is None:   # the plugin's fields instead of Wireshark's
                    plugin_cmd = common + ["-T", "fields", "-e", "frame.number", *_e(ANALYSIS_PLUGIN)] + with_plugin
                else:
                    plugin_cmd = common + base + extra + with_plugin
                t1, w1 = best(plugin_cmd, args.repeat)
                rows.append({"tshark": str(ts), "mode": mode, "without_s": round(t0, 3), "with_s": round(t1, 3),
                             "ratio_tshark": round(t1 / t0, 2), "ratio_with_annotate": round((t1 + t_annotate) / t0, 2),
                             "us_per_frame": round((t1 - t0) / frames * 1e6, 2),
                             "wall_without_s": round(w0, 3), "wall_with_s": round(w1, 3)})
                print(f"  {ts} {mode}: {t0:.2f} s → {t1:.2f} s CPU (+ annotate {t_annotate:.2f} s); wall {w0:.2f} → "
                      f"{w1:.2f} s", file=sys.stderr)
    print(f"# Wireshark plugin overhead — {frames} frames{', ' + args.label if args.label else ''}\n")
    print(f"`tcpdiag wireshark annotate`: {t_annotate:.2f} s CPU ({t_annotate / frames * 1e6:.1f} µs a frame), "
          "once per capture. Times are CPU seconds (user + system), best of "
          f"{args.repeat}; the machine's other load moves wall times more than CPU times.\n")
    print("| tshark | mode | without plugin | with plugin | ratio | ratio incl. annotate | added per frame |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['tshark']} | {r['mode']} | {r['without_s']:.2f} s | {r['with_s']:.2f} s | {r['ratio_tshark']:.2f}× "
              f"| {r['ratio_with_annotate']:.2f}× | {r['us_per_frame']:.1f} µs |")
    RESULTS.mkdir(exist_ok=True)
    suffix = f"-{args.label}" if args.label else ""
    out = RESULTS / f"plugin-{dt.date.today():%Y%m%d}{suffix}.json"
    plugin_name = str(args.plugin.resolve().relative_to(ROOT)) if args.plugin.resolve().is_relative_to(ROOT) \
        else args.plugin.name
    out.write_text(json.dumps({"frames": frames, "label": args.label, "plugin": plugin_name, "repeat": args.repeat,
                               "annotate_s": round(t_annotate, 3),
                               "annotate_wall_s": round(w_annotate, 3),
                               "rows": rows}, indent=1) + "\n")
    print(f"\nJSON: {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
