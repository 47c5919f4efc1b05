"""The `tcpdiag analyze --json` document (schema: report/analyze.schema.json, described in
docs/json-schema.md). Plain dicts from the report model; no pandas.

`SCHEMA_VERSION` changes only on an incompatible change (a field removed, renamed or
retyped); new optional fields keep the version and are added to the schema file.
"""

from __future__ import annotations

import datetime as dt
import json
from importlib import resources
from typing import IO, Any

from tcpdiag import __version__
from tcpdiag.report.model import FlowReport

SCHEMA_VERSION = 1
KIND = "tcpdiag.analyze"


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) the document validates against."""
    return json.loads(resources.files("tcpdiag.report").joinpath("analyze.schema.json").read_text("utf-8"))


def _iso(epoch: float) -> str:
    t = dt.datetime.fromtimestamp(epoch, dt.timezone.utc)
    return t.isoformat(timespec="microseconds").replace("+00:00", "Z")


def _finding(f) -> dict[str, Any]:
    return {
        "id": f.id, "field": f.field, "severity": f.severity, "share": f.share, "message": f.message,
        "remedy": f.remedy or None, "frames": list(f.frames), "values": dict(f.values),
    }


def flow_doc(r: FlowReport) -> dict[str, Any]:
    f = r.facts
    return {
        "stream": r.stream,
        "rank": r.rank,
        "hidden": r.hidden,
        "sender": {"addr": r.sender.addr, "port": r.sender.port},
        "receiver": {"addr": r.receiver.addr, "port": r.receiver.port},
        "vantage": r.vantage,
        "start": _iso(r.start),
        "start_epoch": r.start,
        "duration_s": r.duration_s,
        "first_frame": r.first_frame,
        "last_frame": r.last_frame,
        "packets": r.packets,
        "data_bytes": r.data_bytes,
        "payload_bytes": r.payload_bytes,
        "frame_bytes": r.frame_bytes,
        "goodput_bps": r.goodput_bps,
        "rtt": {"min_ms": f.get("min_rtt_ms"), "avg_ms": f.get("mean_rtt_ms"), "srtt_ms": f.get("srtt_ms")},
        "options": dict(r.options),
        "verdict": _finding(r.primary),
        "shares": dict(r.shares),
        "ceiling": r.ceiling.as_dict(),
        "findings": [_finding(x) for x in r.findings[1:]],
        "facts": {k: f.get(k) for k in FACTS},
        "wireshark_filter": f"tcp.stream == {r.stream}",
    }


#: Flow facts copied into the document, as the engine names them.
FACTS = ("busy_s", "mss", "rwnd_min", "rwnd_max", "retrans", "spurious", "dsacks", "reorder_events",
         "max_reorder_ms", "recoveries", "zero_windows", "lost_before_bytes")


def document(reports: list[FlowReport], *, capture: str, stats: dict[str, Any], error: Any = None,
             vantage: str = "auto", target_bps: float | None = None) -> dict[str, Any]:
    return {
        "kind": KIND,
        "schema_version": SCHEMA_VERSION,
        "tcpdiag": __version__,
        "capture": capture,
        "vantage_option": vantage,
        "target_rate_bps": target_bps,
        "stats": {k: stats.get(k, 0) for k in ("frames", "tcp_segments", "not_tcp", "undecodable")},
        "error": None if error is None else {
            "kind": error.kind, "message": error.detail, "offset": error.offset, "frames_read": error.frames_read,
        },
        "flows_total": len(reports),
        "flows": [flow_doc(r) for r in reports],
    }


def write(doc: dict[str, Any], out: IO[str]) -> None:
    """One flow per line: greppable, and json's C encoder only runs without indentation
    (an indented dump of 20,000 flows took 10 s; this takes under one)."""
    head = json.dumps({k: v for k, v in doc.items() if k != "flows"}, ensure_ascii=False)
    out.write(head[:-1] + ', "flows": [\n')
    out.write(",\n".join(json.dumps(f, ensure_ascii=False) for f in doc["flows"]))
    out.write("\n]}\n")
