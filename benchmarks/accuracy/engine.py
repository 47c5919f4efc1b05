"""The one place the eval reads tcpdiag's output and maps it to kernel labels.

The engine's output formats are being reworked (verdict sub-types, an inferred congestion
control, a "cannot tell from this vantage" answer): when they change, change this file only.
Today it runs the installed CLI, `tcpdiag analyze --json --all FILE` (verdicts, findings,
shares; docs/json-schema.md) and `tcpdiag packets --analysis --format csv FILE` (per-packet
in-flight and cwnd estimate; docs/tables.md).

An engine id missing from ENGINE_LABELS is kept as itself (family = the id, no sub-type), so
a new verdict shows up in the confusion matrix instead of crashing the eval. ABSTAIN ids
answer "cannot tell"; they count as not right.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

# engine verdict id → (kernel family, kernel sub-type or None: the engine names none).
ENGINE_LABELS = {
    "rwnd_limited": ("rwnd-limited", None),
    "rwnd_static": ("rwnd-limited", "so_rcvbuf"),  # "remove the static SO_RCVBUF"
    "rwnd_autotune_ceiling": ("rwnd-limited", "rmem_max"),  # "raise tcp_rmem's maximum"
    "wscale_missing": ("rwnd-limited", "no_wscale"),
    "zero_window_stall": ("rwnd-limited", "slow_reader"),  # "the receiving application ..."
    "rwnd_slow_reader": ("rwnd-limited", "slow_reader"),  # "the receiving application ..."
    "sndbuf_limited": ("sndbuf-limited", None),
    "app_limited": ("app-limited", None),
    "app_request_response": ("app-limited", "request_response"),  # "pipeline them ..."
    "app_slow_writer": ("app-limited", "periodic"),  # "find what its writes wait on"
    "reorder_limited": ("reorder-limited", None),
    "loss_limited": ("loss-limited", None),
    "slow_start_overshoot": ("slow-start-overshoot", None),
    "bandwidth_limited": ("bandwidth-limited", None),
    "slow_start_limited": ("slow-start-limited", None),  # ended in its first slow start
    "cwnd_limited": ("cwnd-limited", None),  # the window held it, no cause shown: cannot tell
    "not_limited": ("not-limited", None),
}
ABSTAIN = {"not_limited", "cwnd_limited", "cannot_tell", "undetermined"}
TIMEOUT_S = 300  # per capture; the sweep's largest take seconds when the engine is healthy


def tcpdiag_exe() -> list[str]:
    """The console script beside this interpreter, else the one on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "tcpdiag")
    return [here] if os.path.exists(here) else ["tcpdiag"]


def engine_version(exe: list[str]) -> str:
    out = subprocess.run([*exe, "--version"], capture_output=True, text=True)
    return (out.stdout or out.stderr).strip()


@dataclass
class Verdict:
    """The engine's answer for one flow, in kernel-label terms plus its own words."""

    engine_id: str
    family: str
    subtype: str | None
    abstained: bool
    vantage: str
    message: str
    remedy: str | None
    rwnd_share: float | None
    sndbuf_share: float | None
    shares: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)
    stream: int = -1
    elapsed_s: float = 0.0
    cc: str = "unknown"  # congestion control inferred: reno, cubic, bbr or unknown
    cc_evidence: str = ""


def to_label(engine_id: str) -> tuple[str, str | None]:
    return ENGINE_LABELS.get(engine_id, (engine_id, None))


def _main_flow(flows: list[dict], sender: tuple[str, int] | None) -> dict | None:
    """The run's transfer: the flow whose data sender is `sender`, else the biggest."""
    if not flows:
        return None
    if sender:
        for f in flows:
            if (f["sender"]["addr"], f["sender"]["port"]) == tuple(sender):
                return f
    return max(flows, key=lambda f: f.get("data_bytes", 0))


def _failed(engine_id: str, message: str) -> Verdict:
    return Verdict(engine_id, engine_id, None, True, "unknown", message, None, None, None)


def analyze(exe: list[str], path: str, sender: tuple[str, int] | None) -> Verdict:
    """The engine's verdict on the run's flow; a crash or a run past TIMEOUT_S becomes an
    answer of its own (engine_error / engine_timeout), counted as not right."""
    t0 = time.monotonic()
    try:
        out = subprocess.run([*exe, "analyze", "--json", "--all", path], capture_output=True,
                             text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        v = _failed("engine_timeout", f"tcpdiag analyze did not finish in {TIMEOUT_S} s")
        v.elapsed_s = TIMEOUT_S
        return v
    if out.returncode not in (0, 5):  # 5: damaged capture, flows still reported
        last = (out.stderr.strip().splitlines() or [""])[-1]
        return _failed("engine_error", f"exit {out.returncode}: {last}")
    doc = json.loads(out.stdout)
    f = _main_flow(doc["flows"], sender)
    if f is None:
        return _failed("no_flow", "no flow found")
    v = f["verdict"]
    family, subtype = to_label(v["id"])
    shares = f.get("shares") or {}
    rwnd = shares.get("rwnd")
    if rwnd is not None:
        rwnd += shares.get("zero_window", 0.0)  # the kernel's rwnd chrono includes zero windows
    cc = f.get("congestion_control") or {}
    return Verdict(v["id"], family, subtype, v["id"] in ABSTAIN, f.get("vantage", "unknown"),
                   v.get("message", ""), v.get("remedy"), rwnd, shares.get("sndbuf"),
                   shares, [x["id"] for x in f.get("findings", [])], f["stream"],
                   round(time.monotonic() - t0, 2), cc.get("name", "unknown"), cc.get("evidence", ""))


@dataclass
class PacketSeries:
    """The engine's per-packet state of one flow's data direction, in capture order."""

    ts_ns: np.ndarray
    in_flight: np.ndarray
    cwnd: np.ndarray


def _ns(text: str) -> int:
    sec, _, frac = text.partition(".")
    return int(sec) * 1_000_000_000 + int((frac + "000000000")[:9])


def packets(exe: list[str], path: str, v: Verdict, sender: tuple[str, int]) -> PacketSeries:
    """Rows of flow `v` that describe its data direction (the one `sender` sends)."""
    with tempfile.NamedTemporaryFile(suffix=".csv") as tmp:
        out = subprocess.run([*exe, "packets", "--analysis", "--format", "csv", "-o", tmp.name,
                              path], capture_output=True, text=True, timeout=TIMEOUT_S)
        if out.returncode not in (0, 5):
            raise RuntimeError(f"tcpdiag packets {path}: exit {out.returncode}: "
                               f"{out.stderr[-500:]}")
        ts, flight, cwnd = [], [], []
        data_dir = None
        with open(tmp.name, newline="") as f:
            for row in csv.DictReader(f):
                if int(row["stream"]) != v.stream:
                    continue
                if data_dir is None and (row["src"], int(row["sport"])) == tuple(sender):
                    data_dir = row["dir"]
                if row["data_dir"] != data_dir:
                    continue
                ts.append(_ns(row["ts"]))
                flight.append(int(row["in_flight"] or 0))
                cwnd.append(int(row["cwnd"] or 0))
    return PacketSeries(np.array(ts, dtype=np.int64), np.array(flight, dtype=np.float64),
                        np.array(cwnd, dtype=np.float64))
