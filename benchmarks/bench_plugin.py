#!/usr/bin/env python3
"""Cost of the Wireshark plugin: tshark with `-X lua_script:wireshark-plugin/tcpdiag.lua`
against the same tshark command without it, on one large capture.

    python3 benchmarks/bench_plugin.py                    # all samples appended (~130k frames)
    python3 benchmarks/bench_plugin.py --copies 4         # the same, four times over
    python3 benchmarks/bench_plugin.py --capture big.pcap --repeat 3

Modes (each run with and without the plugin, one after another, best wall time of
--repeat): `fields` (tshark -T fields with a few TCP fields: what scripts do), `analysis`
(the plugin's own fields vs Wireshark's tcp.analysis fields: the like-for-like question),
`two-pass` (-2 -R tcp -q: the plugin's first pass plus the verdicts) and `verbose` (-V, the
full tree as the GUI builds it for the selected packet). Each mode is timed twice with the
plugin: analysing in Lua (`lua`), and in annotated mode (`annotated`: `tcpdiag wireshark
annotate` first — its time is added to tshark's — then tshark reads the engine's results,
`-X lua_script1:annotations=FILE`). Peak RSS from GNU time when installed. Markdown to
stdout, JSON to benchmarks/results/plugin-<date>.json. Benchmarks report; they never fail
on speed (target: overhead ≤ 1.5×).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
PLUGIN = ROOT / "wireshark-plugin" / "tcpdiag.lua"
GNU_TIME = Path("/usr/bin/time")

PLUGIN_FIELDS = ["tcpdiag.rwnd", "tcpdiag.in_flight", "tcpdiag.cwnd", "tcpdiag.limit", "tcpdiag.retrans",
                 "tcpdiag.dsack", "tcpdiag.rtt_ns"]
WIRESHARK_FIELDS = ["tcp.window_size", "tcp.analysis.bytes_in_flight", "tcp.analysis.retransmission",
                    "tcp.analysis.ack_rtt", "tcp.options.sack.dsack", "tcp.analysis.zero_window"]
MODES = {
    "fields": (["-T", "fields", "-e", "frame.number", "-e", "tcp.stream", "-e", "tcp.len"], None),
    "analysis": (["-T", "fields", "-e", "frame.number"], (PLUGIN_FIELDS, WIRESHARK_FIELDS)),
    "two-pass": (["-2", "-R", "tcp", "-q"], None),
    "verbose": (["-V"], None),
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


def run(cmd: list[str]) -> tuple[float, int | None]:
    """Wall seconds and peak RSS (KiB, None without GNU time); output discarded."""
    rss = None
    if GNU_TIME.exists():
        cmd = [str(GNU_TIME), "-f", "%M", *cmd]
    t = time.perf_counter()
    res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {res.stderr.strip()[-500:]}")
    if GNU_TIME.exists():
        rss = int(res.stderr.strip().splitlines()[-1])
    return wall, rss


def best(cmd: list[str], repeat: int) -> tuple[float, int | None]:
    runs = [run(cmd) for _ in range(repeat)]
    return min(r[0] for r in runs), max((r[1] or 0) for r in runs) or None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--capture", type=Path, help="capture to use (default: the samples appended)")
    ap.add_argument("--copies", type=int, default=1, help="times the samples are appended (default 1)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per measurement; the best counts (default 1)")
    ap.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
    args = ap.parse_args()
    tshark = shutil.which("tshark")
    if tshark is None:
        print("tshark not installed", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        capture = args.capture or build_capture(Path(tmp) / "samples.pcap", args.copies)
        frames = int(subprocess.run(["capinfos", "-c", "-M", "-T", str(capture)], capture_output=True,
                                    text=True).stdout.split("\n")[1].split("\t")[-1])
        annotations = Path(tmp) / "annotations.lua"
        t_annotate, m_annotate = best([*tcpdiag_exe(), "wireshark", "annotate", str(capture), "-o",
                                       str(annotations)], args.repeat)
        print(f"  tcpdiag wireshark annotate: {t_annotate:.2f} s", file=sys.stderr)
        plugin_args = {"lua": ["-X", f"lua_script:{PLUGIN}"],
                       "annotated": ["-X", f"lua_script:{PLUGIN}", "-X", f"lua_script1:annotations={annotations}"]}
        rows = []
        for mode in args.modes.split(","):
            base_args, fields = MODES[mode]
            common = [tshark, "-n", "-r", str(capture), *base_args]
            with_fields = [x for f in (fields[0] if fields else []) for x in ("-e", f)]
            without_fields = [x for f in (fields[1] if fields else []) for x in ("-e", f)]
            t0, m0 = best(common + without_fields, args.repeat)
            for plugin, extra in plugin_args.items():
                t1, m1 = best(common + with_fields + extra, args.repeat)
                if plugin == "annotated":
                    t1 += t_annotate
                rows.append({"mode": mode, "plugin": plugin, "without_s": round(t0, 3), "with_s": round(t1, 3),
                             "ratio": round(t1 / t0, 2), "rss_without_kib": m0, "rss_with_kib": m1,
                             "us_per_frame": round((t1 - t0) / frames * 1e6, 1)})
                print(f"  {mode} ({plugin}): {t0:.2f} s → {t1:.2f} s", file=sys.stderr)
    version = subprocess.run([tshark, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"# Wireshark plugin overhead — {frames} frames, {version}\n")
    print(f"`tcpdiag wireshark annotate`: {t_annotate:.2f} s (included in the annotated rows)\n")
    print("| mode | plugin | without plugin | with plugin | ratio | added per frame | peak RSS without → with |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        mem = f"{(r['rss_without_kib'] or 0) / 1024:.0f} → {(r['rss_with_kib'] or 0) / 1024:.0f} MiB"
        print(f"| {r['mode']} | {r['plugin']} | {r['without_s']:.2f} s | {r['with_s']:.2f} s | {r['ratio']:.2f}× | "
              f"{r['us_per_frame']:.1f} µs | {mem} |")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"plugin-{dt.date.today():%Y%m%d}.json"
    out.write_text(json.dumps({"frames": frames, "tshark": version, "annotate_s": round(t_annotate, 3),
                               "annotate_rss_kib": m_annotate, "rows": rows}, indent=1) + "\n")
    print(f"\nJSON: {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
