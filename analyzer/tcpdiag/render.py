"""Renders the flows table (`tcpdiag flows`) as an aligned text table, JSON or CSV (no
pandas needed). Rows are taken a slice at a time: a capture may hold a million flows."""

from __future__ import annotations

import csv
import json
from typing import IO, Any, Iterator

from tcpdiag import __version__
from tcpdiag.tables import ScanResult, column_names

#: Version of the `flows --format json` document; bump on incompatible change.
FLOWS_JSON_SCHEMA = 1


#: Rows converted to Python at once.
_SLICE = 10_000


def _rows(res: ScanResult) -> Iterator[dict[str, Any]]:
    for b in res.flow_batches:
        for i in range(0, b.num_rows, _SLICE):
            for row in b.rows(i, _SLICE):
                row["start"] = None if row["start"] is None else row["start"] / 1e9
                yield row


def flows_json(res: ScanResult, out: IO[str]) -> None:
    doc = {
        "schema": FLOWS_JSON_SCHEMA,
        "tcpdiag": __version__,
        "capture": res.file,
        "stats": res.stats,
        "error": None if res.error is None else {
            "kind": res.error.kind, "message": res.error.detail, "offset": res.error.offset,
            "frames_read": res.error.frames_read,
        },
        "flows": list(_rows(res)),
    }
    json.dump(doc, out, indent=1)
    out.write("\n")


def flows_csv(res: ScanResult, out: IO[str]) -> None:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(column_names(res.flows_schema))
    for row in _rows(res):
        w.writerow(["" if v is None else v for v in row.values()])


def _endpoint(addr: str, port: int) -> str:
    return f"[{addr}]:{port}" if ":" in addr else f"{addr}:{port}"


def _size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return str(n)


def _wscale(row: dict[str, Any]) -> str:
    eff = row["wscale_in_effect"]
    if eff is None:
        return "?"
    if not eff:
        return "off"
    return f"{row['wscale_a']}/{row['wscale_b']}"


def flows_text(res: ScanResult, out: IO[str]) -> None:
    head = ["stream", "A", "B", "pkts A>B", "pkts B>A", "data A>B", "data B>A", "duration", "hs", "wscale"]
    table = [head]
    for r in _rows(res):
        table.append([
            str(r["stream"]), _endpoint(r["a_addr"], r["a_port"]), _endpoint(r["b_addr"], r["b_port"]),
            str(r["packets_ab"]), str(r["packets_ba"]), _size(r["payload_ab"]), _size(r["payload_ba"]),
            f"{r['duration_s']:.3f} s", "yes" if r["handshake"] else "no", _wscale(r),
        ])
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    right = {0, 3, 4, 5, 6, 7}
    for row in table:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        out.write("  ".join(cells).rstrip() + "\n")
    s = res.stats
    out.write(f"\n{len(table) - 1} flows, {s['tcp_segments']} TCP segments in {s['frames']} frames\n")
