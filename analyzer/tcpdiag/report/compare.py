"""Reporters of a `Comparison` (tcpdiag.comparison): the terminal text and the JSON
document of `tcpdiag compare`. The engine words every finding; these functions arrange
them. Plain dicts and Arrow rows; no pandas.
"""

from __future__ import annotations

import io
import json
from typing import IO, TYPE_CHECKING, Any

from tcpdiag import __version__
from tcpdiag.report.text import Style, frame_filter
from tcpdiag.units import fmt

if TYPE_CHECKING:
    from tcpdiag.comparison import Comparison, Pair

KIND = "tcpdiag.compare"
SCHEMA_VERSION = 1
#: Pairs listed unless asked for all: the ones with a problem first.
DEFAULT_PAIRS = 20
_DIRS = ("client → server", "server → client")
_CLEAN = "path_clean"


def clock_line(c: "Comparison") -> str:
    """The clock alignment and the assumption it rests on, in words."""
    k, (na, nb) = c.clock, c.names
    basis = k["basis"]
    if basis == "none":
        return f"clocks: no segment seen in both captures; {nb}'s times are taken as they are"
    off = fmt("ms", k["offset_ns"] / 1e6)
    drift = f", drifting {k['drift_ppm']:.1f} ppm" if k["drift_ppm"] else ""
    if basis == "both_directions":
        return (f"clocks: {nb} = {na} {'+' if k['offset_ns'] >= 0 else ''}{off} ± {fmt('ms', k['uncertainty_ns'] / 1e6)}"
                f"{drift} (bounded by both directions of {k['flows']} flow{'s' if k['flows'] != 1 else ''}; "
                "the middle assumes equal smallest delays each way)")
    if basis == "inconsistent":
        return (f"clocks: {nb} = {na} {'+' if k['offset_ns'] >= 0 else ''}{off}{drift} (no single offset fits every flow: "
                "one-way delays are approximate)")
    return (f"clocks: {nb} = {na} {'+' if k['offset_ns'] >= 0 else ''}{off} (one direction only: assumes the "
            "smallest one-way delay is zero)")


def _ranked(c: "Comparison") -> list[int]:
    """Pair numbers, those with a problem first (error, warn, note), then clean, then the rest."""
    order = {"error": 0, "warn": 1, "note": 2, "chat": 3}
    rows = c.pair_table.select(["pair", "severity", "finding"]).to_pylist()
    return [r["pair"] for r in sorted(rows, key=lambda r: (order.get(r["severity"], 4), r["pair"]))]


def _ends(p: "Pair", side: str) -> str:
    r = p.row
    return f"{r['client_' + side]} → {r['server_' + side]}"


def _direction_line(d: dict[str, Any], names: tuple[str, str]) -> str:
    up, down = (names[0], names[1]) if d["upstream"] == "a" else (names[1], names[0])
    parts = [f"{d['seen_a']:,} at {names[0]}, {d['seen_b']:,} at {names[1]}"]
    if d["owd_min_ms"] is not None:
        parts.append(f"delay {up}→{down} {fmt('ms', d['owd_min_ms'])} / {fmt('ms', d['owd_p50_ms'])} / "
                     f"{fmt('ms', d['owd_p95_ms'])} (min / median / p95)")
    lost = (d["lost_before"], d["lost_between"], d["lost_after"])
    if any(lost):
        parts.append(f"lost {lost[0]} before {up}, {lost[1]} between, {lost[2]} after {down}")
    if d["reordered"]:
        parts.append(f"{d['reordered']} reordered between")
    return "; ".join(parts)


def pair_block(p: "Pair", c: "Comparison", s: Style) -> list[str]:
    na, nb = c.names
    r = p.row
    if p.matched:
        head = f"pair {p.number}  {na} flow {r['stream_a']} ↔ {nb} flow {r['stream_b']}  {_ends(p, 'a')}"
        if r["client_a"] != r["client_b"] or r["server_a"] != r["server_b"]:
            head += f"  ({nb}: {_ends(p, 'b')})"
        where = {"client_side": f"{na} on the client's side", "server_side": f"{na} on the server's side"}
        lines = [s.bold(head) + s.dim(f"   ({where.get(r['a_position'], 'position unknown')}; "
                                      f"matched {r['matched_by']})")]
        for d in p.directions:
            lines.append(f"  {_DIRS[d['dir']]}: {_direction_line(d, c.names)}")
    else:
        side, name = ("a", na) if r["stream_a"] is not None else ("b", nb)
        lines = [s.bold(f"pair {p.number}  {name} flow {r['stream_' + side]}  {_ends(p, side)}")
                 + s.dim(f"   (in {name} only)")]
    for f in p.findings:
        if f.id == _CLEAN and len(p.findings) == 1:
            lines.append("  " + s.severity("PATH CLEAN", f.severity) + "  " + f.message)
            continue
        lines.append("  " + s.severity(f.id.replace("_", " ").upper(), f.severity) + "  " + f.message)
        if f.remedy:
            lines.append(f"      remedy:  {f.remedy}")
        ev = [f"{na}: {frame_filter(f.frames_a)}" if f.frames_a else "",
              f"{nb}: {frame_filter(f.frames_b)}" if f.frames_b else ""]
        ev = [e for e in ev if e]
        if ev:
            lines.append("      evidence:  " + "   ".join(ev))
    return lines


def text(c: "Comparison", out: IO[str] | None = None, *, show_all: bool = False, colour: bool = False) -> str | None:
    """The terminal report (returned as a string when `out` is None)."""
    buf = io.StringIO() if out is None else out
    s = Style(colour)
    na, nb = c.names
    for name, path, res in ((na, c.paths[0], c.a), (nb, c.paths[1], c.b)):
        buf.write(s.bold(f"{name}") + f" = {path}: {res.flows.num_rows} TCP flows, "
                  f"{res.stats.get('tcp_segments', 0):,} segments\n")
    buf.write(clock_line(c) + "\n")
    if c.matched == 0:
        buf.write(s.severity("NO FLOWS IN COMMON", "warn") + f": none of the {c.only_a} flows of {na} appears in {nb} "
                  f"({c.only_b} flows), by endpoints or by their segments: these captures do not hold the same "
                  "transfer, or do not overlap in time.\n")
    else:
        trans = f" ({c.translated} through NAT or sequence rewriting)" if c.translated else ""
        buf.write(f"flows: {c.matched} matched{trans}, {c.only_a} only in {na}, {c.only_b} only in {nb}\n")
    order = _ranked(c)
    shown = order if show_all else order[:DEFAULT_PAIRS]
    for n in shown:
        buf.write("\n" + "\n".join(pair_block(c.pair(n), c, s)) + "\n")
    if len(shown) < len(order):
        buf.write(f"\n{len(order) - len(shown)} more pairs not shown (--all lists them)\n")
    return buf.getvalue() if out is None else None


def document(c: "Comparison", *, show_all: bool = True) -> dict[str, Any]:
    """The JSON document of a comparison (docs/compare.md describes its fields)."""

    def side(name: str, path: str, res: Any) -> dict[str, Any]:
        err = res.error
        return {"name": name, "file": path, "flows": res.flows.num_rows, "stats": res.stats,
                "error": None if err is None else {"kind": err.kind, "message": str(err), "offset": err.offset,
                                                   "frames_read": err.frames_read}}

    order = _ranked(c)
    pairs = []
    for n in order if show_all else order[:DEFAULT_PAIRS]:
        p = c.pair(n)
        row = {k: v for k, v in p.row.items() if k not in ("finding", "severity", "message", "findings")}
        dirs = [{k: v for k, v in d.items() if k != "pair"} for d in p.directions]
        pairs.append({**row, "directions": dirs, "findings": [f.as_dict() for f in p.findings]})
    return {
        "kind": KIND,
        "schema_version": SCHEMA_VERSION,
        "tcpdiag_version": __version__,
        "a": side(c.names[0], c.paths[0], c.a),
        "b": side(c.names[1], c.paths[1], c.b),
        "clock": dict(c.clock),
        "matched": c.matched,
        "translated": c.translated,
        "only_a": c.only_a,
        "only_b": c.only_b,
        "pairs_total": len(order),
        "pairs": pairs,
    }


def write_json(doc: dict[str, Any], out: IO[str]) -> None:
    json.dump(doc, out, indent=1, ensure_ascii=False, allow_nan=False)
    out.write("\n")
