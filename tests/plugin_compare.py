"""Runs the Wireshark plugin under a tshark (tests/tsharks.py) with a capture's
annotations and compares its fields with `tcpdiag packets --analysis`, and its packet
expert infos with the engine's events table, frame for frame (used by
tests/test_wireshark_*.py and tests/test_surfaces.py)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from conftest import FINDINGS
from tsharks import Tshark, scratch, stage

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "wireshark-plugin" / "tcpdiag.lua"

#: The analysis columns (emit/analysis.rs COLUMNS), each a `tcpdiag.<column>` field.
COLUMNS = ["data_dir", "rwnd", "rwnd_basis", "in_flight", "unacked", "sacked", "cwnd", "cwnd_conf", "limit",
           "retrans", "retrans_of", "dsack", "spurious_of", "spurious_by", "reorder_packets", "reorder_bytes",
           "reorder_ns", "lost_before", "dup_ack", "zero_window", "zero_window_probe", "window_full", "keepalive",
           "duplicate", "rtt_ns"]
#: Boolean columns: compared by value (the CSV says 1/0, tshark 4.0 too, tshark >= 4.4 True/False).
BOOLEANS = {"dsack", "zero_window", "zero_window_probe", "window_full", "keepalive", "duplicate"}
#: The expert fields of the packet events (tcpdiag.analysis.*), one per catalogue entry.
EVENT_EXPERTS = [f["field"] for f in FINDINGS.values() if f["scope"] == "packet"]
#: Joins a field's occurrences in tshark's output: expert texts hold commas.
AGGREGATOR = "\x1f"
#: What an absent plugin field means in the CSV.
EMPTY_AS = {c: "0" for c in COLUMNS} | {"rwnd_basis": "", "cwnd_conf": "", "limit": "", "retrans": "",
                                        "spurious_by": "", "reorder_ns": "", "rtt_ns": ""}


def tcpdiag_exe() -> list[str]:
    script = Path(sys.executable).parent / "tcpdiag"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tcpdiag.cli"]


def annotate(path: Path) -> Path:
    """`tcpdiag wireshark annotate path` into the staging folder (a damaged capture still
    gets the frames before the damage)."""
    out = scratch("annotations.lua")
    subprocess.run([*tcpdiag_exe(), "wireshark", "annotate", str(path), "-o", str(out)], check=False,
                   capture_output=True, text=True, timeout=1200)
    return out


def plugin_args(annotations: Path | None = None, preference: bool = False, script: int = 1) -> list[str]:
    """tshark's arguments loading the plugin (the `script`-th -X lua_script) and naming the
    annotations by a script argument, or by the preference."""
    args = ["-X", f"lua_script:{stage(PLUGIN)}"]
    if annotations is not None:
        args += ["-o", f"tcpdiag.annotations:{annotations}"] if preference else \
                ["-X", f"lua_script{script}:annotations={annotations}"]
    return args


def plugin_rows(ts: Tshark, path: Path, annotations: Path | None, two_pass: bool = False,
                read_filter: str | None = None, extra: list[str] | None = None,
                preference: bool = False) -> tuple[dict[int, list[str]], str]:
    """frame → [analysis columns..., extra fields...] as `ts` shows them with the plugin,
    and tshark's standard error."""
    cmd = ["-n", "-r", stage(path), *plugin_args(annotations, preference), "-T", "fields", "-E", "separator=/t",
           "-E", "occurrence=a", "-E", f"aggregator={AGGREGATOR}", "-e", "frame.number"]
    for c in COLUMNS:
        cmd += ["-e", f"tcpdiag.{c}"]
    for c in extra or []:
        cmd += ["-e", c]
    if two_pass:
        cmd.append("-2")
    if read_filter:
        cmd += ["-R", read_filter]
    res = ts.run(cmd)
    rows = {}
    for line in res.stdout.splitlines():
        vals = line.split("\t")
        rows[int(vals[0])] = vals[1:]
    return rows, res.stderr


def experts(ts: Tshark, path: Path, annotations: Path | None, *extra: str) -> dict[int, dict[str, list[str]]]:
    """frame → {field: its values}: `_ws.expert.message` (every layer's expert infos, in
    order) and the fields named by `extra` ("-e", name, ...); an absent field is []."""
    res = ts.run(["-n", "-r", stage(path), *plugin_args(annotations), "-T", "json", "-e", "frame.number",
                  "-e", "_ws.expert.message", *extra])
    names = ["_ws.expert.message", *extra[1::2]]
    out = {}
    for pkt in json.loads(res.stdout or "[]"):
        f = pkt["_source"]["layers"]
        out[int(f["frame.number"][0])] = {n: f.get(n, []) for n in names}
    return out


def engine_rows(path: Path) -> tuple[dict[int, dict[str, str]], int]:
    res = subprocess.run([*tcpdiag_exe(), "packets", "--analysis", str(path)], capture_output=True, text=True,
                         timeout=1200)
    return {int(r["frame"]): r for r in csv.DictReader(io.StringIO(res.stdout))}, res.returncode


def engine_events(path: Path) -> dict[int, Counter]:
    """frame → the messages of the packet events the engine puts on it (the events
    table; a damaged capture's frames before the damage)."""
    import tcpdiag

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        events = tcpdiag.analyze(str(path), errors="warn").events
    out: dict[int, Counter] = {}
    for frame, scope, message in zip(events["frame"], events["scope"], events["message"]):
        if scope == "packet":
            out.setdefault(int(frame), Counter())[message] += 1
    return out


def event_mismatches(rows: dict[int, list[str]], at: int, events: dict[int, Counter]) -> list:
    """Frames where the plugin's packet expert infos differ from the engine's events:
    `rows` from plugin_rows with `_ws.expert.message` then EVENT_EXPERTS among the
    extra fields, from column `at`."""
    out = []
    for frame in sorted(set(rows) | set(events)):
        want = events.get(frame, Counter())
        row = rows.get(frame)
        if row is None:
            out.append((frame, "frame missing from tshark's output"))
            continue
        shown = Counter(row[at].split(AGGREGATOR)) if row[at] else Counter()
        count = sum(len(row[at + 1 + i].split(AGGREGATOR)) for i in range(len(EVENT_EXPERTS)) if row[at + 1 + i])
        if want - shown or count != sum(want.values()):
            out.append((frame, dict(want), count))
    return out


def value(column: str, cell: str) -> str | bool:
    """A cell as compared: booleans by value, whatever their spelling."""
    if column in BOOLEANS:
        if cell not in ("0", "1", "False", "True"):
            raise ValueError(f"{column}: {cell!r} is not a boolean")
        return cell in ("1", "True")
    return cell


@dataclass
class Comparison:
    frames: int = 0
    mismatches: list = field(default_factory=list)


def compare(plugin: dict[int, list[str]], engine: dict[int, dict[str, str]]) -> Comparison:
    """Every frame the engine analysed shows its values; every other frame shows none."""
    out = Comparison()
    n = len(COLUMNS)
    for frame in sorted(set(plugin) | set(engine)):
        p = plugin.get(frame)
        e = engine.get(frame)
        if e is None:
            if p is not None and any(p[:n]):
                out.mismatches.append((frame, "values on a frame the engine did not analyse"))
            continue
        out.frames += 1
        if p is None:
            out.mismatches.append((frame, "frame missing from tshark's output"))
            continue
        got = {c: value(c, p[i] if p[i] != "" else EMPTY_AS[c]) for i, c in enumerate(COLUMNS)}
        want = {c: value(c, e[c]) for c in COLUMNS}
        diff = {c: (want[c], got[c]) for c in COLUMNS if want[c] != got[c]}
        if diff:
            out.mismatches.append((frame, diff))
    return out
