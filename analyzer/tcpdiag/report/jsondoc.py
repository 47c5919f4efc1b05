"""The `tcpdiag analyze --json` document (schema: report/analyze.schema.json, described in
docs/json-schema.md). Plain dicts from the report model; no pandas.

`SCHEMA_VERSION` changes only on an incompatible change (a field removed, renamed or
retyped); new optional fields keep the version and are added to the schema file.
Version 2: finding values are plain numbers with their `units`; messages, the time line
and the ceiling come finished from the engine; short flows are counted, not listed
(`--all` lists them).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import IO, Any

from tcpdiag import __version__
from tcpdiag.report.model import FlowReport, Shown

SCHEMA_VERSION = 2
KIND = "tcpdiag.analyze"

#: Flow facts copied into the document, as the engine names them in the flows table.
FACTS = ("busy_s", "idle_s", "mss", "rwnd_min", "rwnd_max", "rwnd_basis", "retrans", "spurious", "dsacks",
         "reorder_events", "max_reorder_ms", "recoveries", "zero_windows", "lost_before_bytes", "limited_s")
SHARES = ("rwnd", "zero_window", "recovery", "cwnd", "sndbuf", "app")
CEILING = {"limit": "ceiling_limit", "window_bytes": "ceiling_window_bytes", "rtt_ms": "ceiling_rtt_ms",
           "min_rtt_ms": "ceiling_min_rtt_ms", "rtt_source": "rtt_source", "ceiling_bps": "ceiling_bps",
           "observed_bps": "goodput_bps", "bdp_bytes": "bdp_bytes", "target_bps": "target_bps",
           "needed_bytes": "needed_bytes", "lines": "ceiling_lines"}


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) the document validates against."""
    from importlib import resources  # here: `analyze --json` never reads the schema (5 ms of start-up)

    return json.loads(resources.files("tcpdiag.report").joinpath("analyze.schema.json").read_text("utf-8"))


def _iso(ns: int | None) -> str | None:
    if ns is None:
        return None
    t = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(microseconds=ns // 1000)
    return t.isoformat(timespec="microseconds").replace("+00:00", "Z")


def flow_doc(r: FlowReport) -> dict[str, Any]:
    row = r.row
    start: int | None = row["start"]
    return {
        "stream": r.stream,
        "rank": r.rank,
        "sender": {"addr": r.sender.addr, "port": r.sender.port},
        "receiver": {"addr": r.receiver.addr, "port": r.receiver.port},
        "vantage": row["vantage"],
        "start": _iso(start),
        "start_epoch": None if start is None else start / 1e9,
        "duration_s": row["duration_s"],
        "first_frame": row["first_frame"],
        "last_frame": row["last_frame"],
        "packets": row["packets_ab"] + row["packets_ba"],
        "data_bytes": row["data_bytes"],
        "payload_bytes": r.payload_bytes,
        "frame_bytes": row["bytes_ab"] + row["bytes_ba"],
        "goodput_bps": row["goodput_bps"],
        "rtt": {"min_ms": row["min_rtt_ms"], "avg_ms": row["mean_rtt_ms"], "srtt_ms": row["srtt_ms"]},
        "options": r.options,
        "verdict": r.primary.as_dict(),
        "shares": {k: row[f"share_{k}"] for k in SHARES},
        "time_line": row["time_line"],
        "transfer_line": row["transfer_line"],
        "congestion_control": {"name": row["congestion_control"], "evidence": row["cc_line"]},
        "ceiling": None if row["ceiling_limit"] is None else {k: row[c] for k, c in CEILING.items()},
        "findings": [x.as_dict() for x in r.findings[1:]],
        "facts": {k: row[k] for k in FACTS},
        "wireshark_filter": f"tcp.stream == {r.stream}",
    }


def document(shown: Shown, *, capture: str, stats: dict[str, Any], error: Any = None, vantage: str = "auto",
             target_bps: float | None = None) -> dict[str, Any]:
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
        "flows_total": shown.total,
        "flows_hidden": shown.hidden,
        "min_bytes": shown.min_bytes,
        "flows": [flow_doc(r) for r in shown.reports],
    }


def write(doc: dict[str, Any], out: IO[str]) -> None:
    """One flow per line: greppable, and json's C encoder only runs without indentation
    (an indented dump of 20,000 flows took 10 s; this takes under one)."""
    head = json.dumps({k: v for k, v in doc.items() if k != "flows"}, ensure_ascii=False)
    out.write(head[:-1] + ', "flows": [\n')
    out.write(",\n".join(json.dumps(f, ensure_ascii=False) for f in doc["flows"]))
    out.write("\n]}\n")
