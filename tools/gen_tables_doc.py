#!/usr/bin/env python3
"""Generates docs/tables.md from the tables the engine declares (emit/schema.rs), read
through the installed package.

    python3 tools/gen_tables_doc.py          # write docs/tables.md
    python3 tools/gen_tables_doc.py --check  # exit 1 if it is stale (run by the tests)
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa

from tcpdiag import tables
from tcpdiag.api import EVENT_COLUMNS

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "tables.md"
HEADER = "<!-- generated from analyzer/core/src/emit/schema.rs by tools/gen_tables_doc.py — do not edit -->"

#: Each table: title, where users meet it, the schema's name, and the columns shown
#: (those of an earlier table are not repeated).
SECTIONS = [
    ("Packets", "`tcpdiag packets`, `tcpdiag.packets()`: one row per TCP segment (TCP headers quoted "
     "inside ICMP errors are not rows)", "packets", None),
    ("Analysis columns", "`tcpdiag packets --analysis`, `Analysis.packets`: what the engine says about each "
     "segment. Every value depends only on this packet and earlier ones (one pass, like tshark without `-2`); "
     "the same names are the Wireshark plugin's `tcpdiag.*` fields", "analysis", "packets"),
    ("Flows", "`tcpdiag flows`, `tcpdiag.flows()`: one row per flow, numbered as Wireshark's `tcp.stream`",
     "flows", None),
    ("Verdict columns", "`Analysis.flows`, `analyze --csv/--parquet` (flows): the flows table of a diagnosis "
     "adds each flow's verdict, as the engine decided and worded it", "verdict", "flows"),
    ("Findings", "`Analysis.findings`, `analyze --csv/--parquet` (findings): every finding of every flow",
     "findings", None),
    ("Events", "`Analysis.events`, `analyze --csv/--parquet` (events): one row per packet event; `Analysis.events` "
     "and the exported table add each flow finding at its first evidence frame, with `scope` = `flow` "
     "(packet events: `packet`)", "events", None),
    ("Series", "`Analysis.series(flow)`, `analyze --csv/--parquet` (series): each flow's state over time, one "
     "row per packet that describes the data direction", "series", None),
    ("SACK blocks", "`Analysis.sacks`: the SACK blocks of every ACK, first block first", "sacks", None),
]


def _type(t: pa.DataType) -> str:
    if pa.types.is_dictionary(t):
        return "category"
    if pa.types.is_timestamp(t):
        return "UTC time"
    if pa.types.is_list(t):
        return f"list of {_type(t.value_type)}"
    if pa.types.is_struct(t):
        return "{" + ", ".join(f.name for f in t) + "}"
    return str(t).replace("uint", "u").replace("int", "i").replace("double", "float").replace("string", "text")


def markdown() -> str:
    out = [HEADER, "# Tables", "",
           "Every table tcpdiag gives comes from the engine as Arrow, its columns declared once in "
           "`analyzer/core/src/emit/schema.rs`; pandas reads categories as Categoricals, times as UTC "
           "datetimes and nullable integers as pandas' nullable dtypes. An empty cell is a value the capture "
           "does not give.", ""]
    for title, where, name, after in SECTIONS:
        skip = {f.name for f in tables.schema(after)} if after else set()
        out += [f"## {title}", "", where + ".", "", "| column | type | meaning |", "|---|---|---|"]
        for f in tables.schema(name):
            if f.name not in skip:
                empty = " (may be empty)" if f.nullable else ""
                out.append(f"| `{f.name}` | {_type(f.type)} | {tables.doc(f)}{empty} |")
        if name == "events":
            out.append("| `scope` | category | packet or flow (added by Analysis.events and the export) |")
        out.append("")
    assert set(EVENT_COLUMNS) <= {f.name for f in tables.schema("events")} | {"scope"}
    return "\n".join(out)


def main() -> int:
    text = markdown()
    if "--check" in sys.argv:
        if not TARGET.exists() or TARGET.read_text() != text:
            print("docs/tables.md is stale: run python3 tools/gen_tables_doc.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
