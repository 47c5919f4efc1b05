#!/usr/bin/env python3
"""Time `tcpdiag flows` against tshark and tcptrace on the benchmark captures, in one run.

    python3 benchmarks/bench_flows.py                      # every capture in benchmarks/data/
    python3 benchmarks/bench_flows.py --quick              # CI smoke: a small capture, seconds
    python3 benchmarks/bench_flows.py --files bulk-1m.pcap --native-cmd target/release/examples/flows
    python3 benchmarks/bench_flows.py --tcpdiag-cmd "capinfos {file}"   # a stand-in command

Per capture and tool: wall time, user+sys CPU and peak RSS from GNU time (`/usr/bin/time -f`),
best (lowest wall) of --repeat runs (a tool whose first run exceeds --single-run-over seconds
runs once), packets/s, and how many times faster tcpdiag (and the native binary) is than tshark
and tcptrace. The 1-minute load average before every run is recorded: the machine may be shared.
Markdown goes to stdout, JSON to benchmarks/results/flows-<date>.json.

A tool that is not installed is reported as "not installed"; one that fails or times out is
reported with its exit status and the tail of its stderr. Benchmarks report; they never fail on
speed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pcaprw  # noqa: E402

DATA = HERE / "data"
RESULTS = HERE / "results"
GNU_TIME = "/usr/bin/time"
TIME_FMT = "%e %U %S %M %x"

DEFAULT_CMDS = {
    "tcpdiag": "tcpdiag flows {file} --format csv",
    "tshark": "tshark -n -q -r {file} -z conv,tcp",
    # -n: no DNS/service lookups (the default resolves every address); -l: long per-connection
    # output (what tcpdiag flows reports). No -r (RTT statistics) and no graphs (both slower).
    "tcptrace": "tcptrace -n -l {file}",
}
SUBJECTS = ("tcpdiag", "native")
# Runs that would take most of the machine's memory; --no-skip runs them anyway.
SKIP = {("tshark", "huge.pcap"): "skipped: tshark keeps ~530 B per packet (~15 GB here); --no-skip"}
BASELINES = ("tshark", "tcptrace")


@dataclass
class Run:
    wall_s: float
    user_s: float
    sys_s: float
    max_rss_kb: int
    exit: int
    load1: float
    out_bytes: int


@dataclass
class Result:
    capture: str
    tool: str
    cmd: str
    status: str  # ok | not installed | failed (exit N) | timeout | skipped
    packets: int
    runs: list[Run] = field(default_factory=list)
    error: str = ""

    @property
    def best(self) -> Run | None:
        ok = [r for r in self.runs if r.exit == 0]
        return min(ok, key=lambda r: r.wall_s) if ok else None

    def summary(self) -> dict:
        b = self.best
        d = {"capture": self.capture, "tool": self.tool, "cmd": self.cmd, "status": self.status,
             "packets": self.packets, "runs": [asdict(r) for r in self.runs]}
        if self.error:
            d["error"] = self.error
        if b is not None:
            d.update(best_wall_s=b.wall_s, cpu_s=round(b.user_s + b.sys_s, 2),
                     peak_rss_mb=round(max(r.max_rss_kb for r in self.runs) / 1024, 1),
                     packets_per_s=round(self.packets / b.wall_s) if b.wall_s > 0 else None)
        return d


def load1() -> float:
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def ensure_gnu_time() -> bool:
    if os.access(GNU_TIME, os.X_OK):
        return True
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("installing GNU time (apt-get install -y time)", file=sys.stderr)
        subprocess.run(["apt-get", "install", "-y", "-q", "time"], capture_output=True)
    return os.access(GNU_TIME, os.X_OK)


def installed(argv: list[str]) -> bool:
    exe = argv[0]
    return (os.access(exe, os.X_OK) and os.path.isfile(exe)) if "/" in exe else bool(shutil.which(exe))


def build_argv(template: str, path: Path) -> list[str]:
    argv = shlex.split(template)
    if not any("{file}" in a for a in argv):
        argv.append("{file}")
    return [a.replace("{file}", str(path)) for a in argv]


def time_once(argv: list[str], timeout: float, gnu_time: bool) -> tuple[Run, str]:
    """One timed run; stdout goes to a temporary file (its size is recorded), stderr is kept."""
    with tempfile.TemporaryDirectory(prefix="tdbench-") as td:
        tfile, ofile = Path(td, "time"), Path(td, "out")
        full = [GNU_TIME, "-f", TIME_FMT, "-o", str(tfile), *argv] if gnu_time else argv
        la = load1()
        t0 = time.perf_counter()
        with open(ofile, "wb") as out:
            # Own process group, so a timeout ends the tool and not only GNU time.
            p = subprocess.Popen(full, stdout=out, stderr=subprocess.PIPE, start_new_session=True)
            try:
                _, err = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
                raise
            wall = time.perf_counter() - t0
        if gnu_time and tfile.exists():
            # GNU time writes "Command exited with non-zero status N" before the format line.
            fields = tfile.read_text().strip().splitlines()[-1].split()
            _, user, sys_, rss, code = fields
            run = Run(round(wall, 3), float(user), float(sys_), int(rss), int(code), la,
                      ofile.stat().st_size)
        else:
            run = Run(round(wall, 3), 0.0, 0.0, 0, p.returncode, la, ofile.stat().st_size)
        return run, err.decode(errors="replace")


def bench_tool(capture: Path, packets: int, tool: str, template: str, args: argparse.Namespace,
               gnu_time: bool) -> Result:
    argv = build_argv(template, capture)
    res = Result(capture.name, tool, shlex.join(argv), "ok", packets)
    if not installed(argv):
        res.status = "not installed"
        return res
    if (tool, capture.name) in SKIP and not args.no_skip:
        res.status = SKIP[(tool, capture.name)]
        return res
    for i in range(args.repeat):
        try:
            run, err = time_once(argv, args.timeout, gnu_time)
        except subprocess.TimeoutExpired:
            res.status = f"timeout ({args.timeout:.0f} s)"
            return res
        res.runs.append(run)
        if run.exit != 0:
            res.status = f"failed (exit {run.exit})"
            res.error = err.strip()[-400:]
            return res
        print(f"  {tool:<9} run {i + 1}: {run.wall_s:8.2f} s  {run.max_rss_kb / 1024:8.1f} MB  "
              f"load {run.load1:.2f}", file=sys.stderr, flush=True)
        if run.wall_s > args.single_run_over:
            break
    return res


def capture_packets(path: Path) -> int:
    meta = path.with_name(path.name + ".meta.json")
    if meta.exists():
        m = json.loads(meta.read_text())
        if m.get("bytes") == path.stat().st_size and "packets" in m:
            return int(m["packets"])
    if shutil.which("capinfos"):
        p = subprocess.run(["capinfos", "-c", "-M", "-T", "-r", str(path)],
                           capture_output=True, text=True)
        if p.returncode == 0 and p.stdout.strip():
            return int(p.stdout.split()[-1])
    return pcaprw.summarize(str(path)).packets


def quick_capture() -> Path:
    """A 20,000-packet slice of bulk-1m.pcap if it exists, else a synthetic one (no root needed)."""
    DATA.mkdir(parents=True, exist_ok=True)
    out = DATA / "quick-20k.pcap"
    if out.exists():
        return out
    src = DATA / "bulk-1m.pcap"
    if src.exists() and shutil.which("editcap"):
        subprocess.run(["editcap", "-r", str(src), str(out), "1-20000"], check=True,
                       capture_output=True)
    else:
        synthetic(out, flows=20, packets=20_000)
    return out


def synthetic(path: Path, flows: int, packets: int) -> None:
    """Handshake, then data segments with an ACK every second segment, round-robin over flows.

    Headers only (snaplen 66); IPv4 checksums valid, TCP checksums not computed (0). For the
    smoke test only: it exercises the tools, not TCP realism.
    """
    import struct

    hdr = pcaprw.PcapHeader("<", False, 66, pcaprw.LINKTYPE_ETHERNET)

    def frame(i: int, to_server: bool, flags: int, seq: int, ack: int, plen: int) -> bytearray:
        cli, srv = 0x0A4D0001 + (i << 8), 0x0A4D0002 + (i << 8)
        src, dst = (cli, srv) if to_server else (srv, cli)
        sp, dp = (40000 + i, 5001) if to_server else (5001, 40000 + i)
        tcp = struct.pack("!HHIIBBHHH", sp, dp, seq, ack, 0x50, flags, 65535, 0, 0)
        ip = bytearray(struct.pack("!BBHHHBBHII", 0x45, 0, 40 + plen, 0, 0x4000, 64, 6, 0, src, dst))
        s = sum(struct.unpack("!10H", ip))
        s = (s & 0xFFFF) + (s >> 16)
        struct.pack_into("!H", ip, 10, ~((s & 0xFFFF) + (s >> 16)) & 0xFFFF)
        return bytearray(b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00") + ip + tcp

    with pcaprw.PcapWriter(str(path), hdr) as w:
        t = 1_700_000_000_000_000
        n = 0
        state = [[1000, 1] for _ in range(flows)]  # next seq, data segments sent
        for i in range(flows):
            for to_s, fl, seq, ack in ((True, 0x02, 999, 0), (False, 0x12, 4999, 1000),
                                       (True, 0x10, 1000, 5000)):
                w.write(pcaprw.Packet(t, 54, frame(i, to_s, fl, seq, ack, 0)))
                t += 10
                n += 1
        while n < packets:
            for i in range(flows):
                seq, k = state[i]
                d = frame(i, True, 0x18, seq, 5000, 1448)
                w.write(pcaprw.Packet(t, 54 + 1448, d))
                state[i] = [seq + 1448, k + 1]
                t += 12
                n += 1
                if k % 2 == 0:
                    w.write(pcaprw.Packet(t, 54, frame(i, False, 0x10, 5000, seq + 1448, 0)))
                    t += 12
                    n += 1


def ratio(slow: Result | None, fast: Result) -> float | None:
    if slow is None or slow.best is None or fast.best is None or fast.best.wall_s <= 0:
        return None
    return slow.best.wall_s / fast.best.wall_s


def fmt_ratio(r: float | None) -> str:
    return "–" if r is None else f"{r:.1f}×"


def markdown(results: list[Result]) -> str:
    lines = ["| capture | packets | tool | wall s (best) | runs | user+sys s | pkts/s | peak RSS MB "
             "| vs tshark | vs tcptrace | load | status |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    by_cap: dict[str, dict[str, Result]] = {}
    for r in results:
        by_cap.setdefault(r.capture, {})[r.tool] = r
    for r in results:
        b = r.best
        vs_ts = vs_tt = ""
        if r.tool in SUBJECTS and b is not None:
            vs_ts = fmt_ratio(ratio(by_cap[r.capture].get("tshark"), r))
            vs_tt = fmt_ratio(ratio(by_cap[r.capture].get("tcptrace"), r))
        if b is None:
            cells = ["", str(len(r.runs)), "", "", "", "", "", ""]
        else:
            rss = max(x.max_rss_kb for x in r.runs) / 1024
            cells = [f"{b.wall_s:.3f}" if b.wall_s < 10 else f"{b.wall_s:.1f}", str(len(r.runs)), f"{b.user_s + b.sys_s:.2f}",
                     f"{r.packets / b.wall_s:,.0f}" if b.wall_s else "", f"{rss:,.1f}",
                     vs_ts, vs_tt, f"{b.load1:.2f}"]
        status = r.status + (f": {r.error.splitlines()[-1][:80]}" if r.error else "")
        lines.append(f"| {r.capture} | {r.packets:,} | {r.tool} | " + " | ".join(cells)
                     + f" | {status} |")
    return "\n".join(lines)


def tool_version(argv0: str, flag: str) -> str:
    if not installed([argv0]):
        return "not installed"
    p = subprocess.run([argv0, flag], capture_output=True, text=True)
    text = (p.stdout or p.stderr).strip().splitlines()
    return next((line for line in text if line.strip()), "")[:120]


def machine() -> dict:
    cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kb = int(f.readline().split()[1])
    return {"host": platform.node(), "kernel": platform.release(), "cpu": cpu,
            "cpus": os.cpu_count(), "mem_gb": round(mem_kb / 2**20, 1),
            "python": platform.python_version()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA, help="folder of captures (default benchmarks/data)")
    ap.add_argument("--files", help="comma-separated capture names in --data (default: all but the template)")
    ap.add_argument("--tools", default="tcpdiag,native,tshark,tcptrace",
                    help="which tools to time, in this order (default: %(default)s)")
    ap.add_argument("--tcpdiag-cmd", default=DEFAULT_CMDS["tcpdiag"],
                    help="command for tcpdiag; {file} is replaced (default: %(default)r)")
    ap.add_argument("--native-cmd", help="a bare native binary (Rust example) to time; {file} is "
                    "replaced, or the file is appended")
    ap.add_argument("--tshark-cmd", default=DEFAULT_CMDS["tshark"])
    ap.add_argument("--tcptrace-cmd", default=DEFAULT_CMDS["tcptrace"])
    ap.add_argument("--repeat", type=int, default=3, help="runs per tool and capture; best is kept")
    ap.add_argument("--single-run-over", type=float, default=60.0,
                    help="no repeats for a tool whose run takes longer than this many seconds")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds before a run is killed")
    ap.add_argument("--huge", action="store_true", help="include huge.pcap if present")
    ap.add_argument("--no-skip", action="store_true", help="also run tshark on huge.pcap")
    ap.add_argument("--quick", action="store_true", help="CI smoke: one 20k-packet capture, 1 run")
    ap.add_argument("--out", type=Path, help="JSON path (default results/flows-<date>.json; "
                    "--quick: data/flows-quick.json)")
    args = ap.parse_args()

    gnu_time = ensure_gnu_time()
    if not gnu_time:
        print("GNU time not available: recording wall time and exit status only", file=sys.stderr)
    cmds = {"tcpdiag": args.tcpdiag_cmd, "tshark": args.tshark_cmd, "tcptrace": args.tcptrace_cmd}
    if args.native_cmd:
        cmds["native"] = args.native_cmd
    tools = [t for t in args.tools.split(",") if t in cmds]

    if args.quick:
        captures = [quick_capture()]
        args.repeat = 1
    elif args.files:
        captures = [args.data / f for f in args.files.split(",")]
    else:
        order = ["bulk-1m.pcap", "bulk-1m.pcapng", "bulk-5m.pcap", "scan-1m.pcap"]
        if args.huge:
            order.append("huge.pcap")
        captures = [args.data / f for f in order if (args.data / f).exists()]
    missing = [c for c in captures if not c.exists()]
    if missing or not captures:
        sys.exit(f"no capture: {', '.join(map(str, missing)) or args.data} "
                 "(run: sudo python3 benchmarks/make_captures.py)")

    started = dt.datetime.now().astimezone()
    results: list[Result] = []
    for cap in captures:
        packets = capture_packets(cap)
        print(f"{cap.name}: {packets:,} packets, {cap.stat().st_size / 1e6:.1f} MB", file=sys.stderr)
        for tool in tools:
            results.append(bench_tool(cap, packets, tool, cmds[tool], args, gnu_time))

    table = markdown(results)
    print(table)
    doc = {
        "benchmark": "flows", "started": started.isoformat(timespec="seconds"),
        "finished": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": machine(), "gnu_time": gnu_time,
        "versions": {"tshark": tool_version("tshark", "--version"),
                     "tcptrace": tool_version("tcptrace", "-v"),
                     "tcpdiag": tool_version(shlex.split(args.tcpdiag_cmd)[0], "--version")},
        "repeat": args.repeat, "single_run_over_s": args.single_run_over,
        "captures": {c.name: {"bytes": c.stat().st_size, "packets": capture_packets(c)} for c in captures},
        "results": [r.summary() for r in results],
        "ratios": {
            c.name: {f"{s}_vs_{b}": ratio(next((r for r in results if r.capture == c.name and r.tool == b), None), sr)
                     for s in SUBJECTS for b in BASELINES
                     for sr in [next((r for r in results if r.capture == c.name and r.tool == s), None)]
                     if sr is not None}
            for c in captures},
        "markdown": table,
    }
    out = args.out or (DATA / "flows-quick.json" if args.quick
                       else RESULTS / f"flows-{started:%Y-%m-%d}.json")
    if out.exists() and not args.out and not args.quick:  # a second run the same day
        out = RESULTS / f"flows-{started:%Y-%m-%d-%H%M%S}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"\nJSON: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
