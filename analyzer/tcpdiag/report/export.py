"""`analyze --csv DIR` / `--parquet DIR`: the tables of a diagnosis as files, streamed.

    flows     one row per flow with its verdict, shares and ceiling (from the first pass)
    findings  every finding of every flow
    packets   every TCP segment with the analysis columns (docs/tables.md)
    events    one row per finding event (packet events, and flow findings at their first
              evidence frame)
    series    every flow's state over time

Packets, events and series are written chunk by chunk as the core reads the capture a
second time, so memory stays bounded by one chunk whatever the capture's size.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tcpdiag import tables

if TYPE_CHECKING:
    from tcpdiag.analysis import Analysis

TABLES = ("flows", "findings", "packets", "events", "series")
CHUNK_ROWS = 1_000_000


def _for_csv(t: pa.Table) -> pa.Table:
    """CSV has no dictionaries or lists: categories as their labels, lists joined."""
    cols = []
    for f, col in zip(t.schema, t.columns):
        if pa.types.is_dictionary(f.type):
            col = col.cast(f.type.value_type)
        elif pa.types.is_list(f.type):
            if pa.types.is_struct(f.type.value_type):  # finding values: name=number pairs
                col = pa.array([" ".join(f"{v['name']}={v['text'] if v['text'] is not None else v['number']}"
                                         for v in x) for x in col.to_pylist()], pa.string())
            else:
                sep = " | " if pa.types.is_string(f.type.value_type) else " "
                col = pa.array([sep.join(map(str, x)) for x in col.to_pylist()], pa.string())
        cols.append(col)
    return pa.table(cols, names=t.column_names)


class _Out:
    """One output file, opened on its first table (CSV or Parquet)."""

    def __init__(self, path: str, fmt: str) -> None:
        self.path, self.fmt = path, fmt
        self.writer: Any = None

    def write(self, t: pa.Table) -> None:
        if self.fmt == "csv":
            t = _for_csv(t)
        if self.writer is None:
            if self.fmt == "csv":
                import pyarrow.csv as pacsv

                self.writer = pacsv.CSVWriter(self.path, t.schema)
            else:
                import pyarrow.parquet as pq

                self.writer = pq.ParquetWriter(self.path, t.schema)
        self.writer.write_table(t.cast(self.writer.schema) if self.fmt == "parquet" else t)

    def close(self, empty: pa.Table) -> None:
        if self.writer is None:
            self.write(empty)
        self.writer.close()


def _only(t: pa.Table, streams: np.ndarray | None) -> pa.Table:
    if streams is None:
        return t
    return t.filter(pc.is_in(t.column("stream"), pa.array(streams, t.schema.field("stream").type)))


def write(a: "Analysis", directory: str, fmt: str, streams: list[int] | None = None) -> list[str]:
    """Writes DIR/{flows,findings,packets,events,series}.{csv,parquet}; returns the paths."""
    os.makedirs(directory, exist_ok=True)
    paths = {name: os.path.join(directory, f"{name}.{fmt}") for name in TABLES}
    wanted = None if streams is None else np.asarray(streams, np.int64)
    flows, findings = _only(a.flow_table, wanted), _only(a.finding_table, wanted)
    for name, t in (("flows", flows), ("findings", findings)):
        out = _Out(paths[name], fmt)
        out.write(t)
        out.close(t)
    # Flow findings appear in the events at their first evidence frame: note those
    # frames' times as the packets go by.
    first = {fr[0] for fr in findings.column("frames").to_pylist() if fr}
    seen_at: dict[int, int] = {}
    outs = {name: _Out(paths[name], fmt) for name in ("packets", "events", "series")}
    chunks = tables.PacketChunks(a.path, CHUNK_ROWS, True, a.vantage, tables.series_spec(flows))
    for chunk in chunks:
        pk = chunk["packets"]
        fr = pk.column("frame").to_numpy()
        hit = np.isin(fr, np.fromiter(first, np.uint64, len(first))) if first else np.zeros(len(fr), bool)
        for f, ts in zip(fr[hit].tolist(), pk.column("ts").cast(pa.int64()).to_numpy()[hit].tolist()):
            seen_at.setdefault(f, ts)
        outs["packets"].write(_only(pk, wanted))
        ev = _only(chunk["events"], wanted)
        outs["events"].write(ev.append_column("scope", pa.array(["packet"] * len(ev), pa.string())))
        outs["series"].write(chunk["series"])
    f = findings.select(["stream", "id", "frames", "message"]).to_pydict()
    frames = [x[0] if x else 0 for x in f["frames"]]
    flow_events = pa.table({
        "frame": pa.array(frames, pa.uint64()), "stream": pa.array(f["stream"], pa.uint32()),
        "time": pa.array([seen_at.get(x) for x in frames], pa.int64()).cast(pa.timestamp("ns", tz="UTC")),
        "kind": pa.array(f["id"], pa.string()).dictionary_encode(),
        "related_frame": pa.nulls(len(frames), pa.uint64()), "message": pa.array(f["message"], pa.string()),
        "scope": pa.array(["flow"] * len(frames), pa.string()),
    })
    outs["events"].write(flow_events)
    empty_events = tables.schema("events").empty_table()
    outs["packets"].close(tables.schema("analysis").empty_table())
    outs["events"].close(empty_events.append_column("scope", pa.array([], pa.string())))
    outs["series"].close(tables.schema("series").empty_table())
    return list(paths.values())
