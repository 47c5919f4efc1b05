"""Runs the Wireshark plugin under tshark and compares its fields with `tcpdiag packets
--analysis`, frame for frame (used by tests/test_wireshark_*.py and benchmarks)."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "wireshark-plugin" / "tcpdiag.lua"

#: The analysis columns (emit/analysis.rs COLUMNS), each a `tcpdiag.<column>` field.
COLUMNS = ["data_dir", "rwnd", "rwnd_basis", "in_flight", "unacked", "sacked", "cwnd", "cwnd_conf", "limit",
           "retrans", "retrans_of", "dsack", "spurious_of", "spurious_by", "reorder_packets", "reorder_bytes",
           "reorder_ns", "lost_before", "dup_ack", "zero_window", "zero_window_probe", "window_full", "keepalive",
           "duplicate", "rtt_ns"]
#: What an absent plugin field means in the CSV.
EMPTY_AS = {c: "0" for c in COLUMNS} | {"rwnd_basis": "", "cwnd_conf": "", "limit": "", "retrans": "",
                                        "spurious_by": "", "reorder_ns": "", "rtt_ns": ""}
CONTEXT = ["frame.protocols", "tcp.stream"]


def tcpdiag_exe() -> list[str]:
    script = Path(sys.executable).parent / "tcpdiag"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tcpdiag.cli"]


def annotate(path: Path, out: Path) -> Path:
    """`tcpdiag wireshark annotate path -o out` (the plugin's annotated mode)."""
    subprocess.run([*tcpdiag_exe(), "wireshark", "annotate", str(path), "-o", str(out)], check=False,
                   capture_output=True, text=True, timeout=1200)
    return out


def tshark_plugin_rows(path: Path, two_pass: bool = False, read_filter: str | None = None,
                       extra: list[str] | None = None,
                       annotations: Path | None = None) -> tuple[dict[int, list[str]], str]:
    """frame → [analysis columns..., protocols, streams] from tshark with the plugin (in
    annotated mode when `annotations` names a file)."""
    cmd = [shutil.which("tshark") or "tshark", "-n", "-r", str(path), "-X", f"lua_script:{PLUGIN}",
           "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,", "-e", "frame.number"]
    for c in COLUMNS:
        cmd += ["-e", f"tcpdiag.{c}"]
    for c in CONTEXT + (extra or []):
        cmd += ["-e", c]
    if annotations is not None:
        cmd += ["-X", f"lua_script1:annotations={annotations}"]
    if two_pass:
        cmd.append("-2")
    if read_filter:
        cmd += ["-R", read_filter]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    rows = {}
    for line in res.stdout.splitlines():
        vals = line.split("\t")
        rows[int(vals[0])] = vals[1:]
    return rows, res.stderr


def engine_rows(path: Path) -> tuple[dict[int, dict[str, str]], int]:
    res = subprocess.run([*tcpdiag_exe(), "packets", "--analysis", str(path)], capture_output=True, text=True,
                         timeout=1200)
    return {int(r["frame"]): r for r in csv.DictReader(io.StringIO(res.stdout))}, res.returncode


def exception_reason(protocols: str, streams: str) -> str | None:
    """Frames where the plugin may differ from the engine, and why (docs/wireshark.md)."""
    p = protocols.split(":")
    if "icmp" in p or "icmpv6" in p:
        return "TCP header quoted inside an ICMP error (not analysed by either)"
    if "," in streams:
        return "several TCP layers in one frame"
    return None


@dataclass
class Comparison:
    frames: int = 0
    mismatches: list = field(default_factory=list)
    excepted: dict = field(default_factory=dict)


def compare(plugin: dict[int, list[str]], engine: dict[int, dict[str, str]],
            known: dict[int, str] | None = None) -> Comparison:
    out = Comparison()
    n = len(COLUMNS)
    for frame in sorted(set(plugin) | set(engine)):
        p = plugin.get(frame)
        e = engine.get(frame)
        if p is not None and not any(p[:n]) and e is None:
            continue    # a frame without TCP
        reason = (known or {}).get(frame) or (exception_reason(p[n], p[n + 1]) if p is not None else None)
        if reason:
            out.excepted[reason] = out.excepted.get(reason, 0) + 1
            continue
        out.frames += 1
        if p is None or e is None:
            out.mismatches.append((frame, "only in the engine" if p is None else "only in the plugin"))
            continue
        got = {c: (p[i] if p[i] != "" else EMPTY_AS[c]) for i, c in enumerate(COLUMNS)}
        diff = {c: (e[c], got[c]) for c in COLUMNS if e[c] != got[c]}
        if diff:
            out.mismatches.append((frame, diff))
    return out
