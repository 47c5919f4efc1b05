"""The Python API: capture tables as pandas DataFrames.

    >>> import tcpdiag
    >>> tcpdiag.flows("samples/clean_bulk.sender.pcap.gz")     # one row per tcp.stream
    >>> tcpdiag.packets("samples/clean_bulk.sender.pcap.gz")   # one row per TCP segment

Every table arrives from the core as Arrow (tcpdiag.tables); `frame` turns one into a
DataFrame: codes become Categoricals, times UTC datetimes, and integer or boolean columns
that may be empty pandas' nullable dtypes.

`errors="raise"` (default) raises `CaptureDamagedError` for a truncated/corrupt capture,
with the readable part in `.partial`; `errors="warn"` returns that part with a
`CaptureWarning`.
"""

from __future__ import annotations

from typing import Iterator

import pandas as pd
import pyarrow as pa

from tcpdiag import tables

_NULLABLE = {
    pa.uint8(): pd.UInt8Dtype(), pa.uint16(): pd.UInt16Dtype(), pa.uint32(): pd.UInt32Dtype(),
    pa.uint64(): pd.UInt64Dtype(), pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype(),
}


def frame(table: pa.Table) -> pd.DataFrame:
    """An Arrow table of the core as a DataFrame (see the module doc for the dtypes)."""
    df = table.to_pandas()
    for f in table.schema:
        if f.nullable and f.type in _NULLABLE:
            df[f.name] = table.column(f.name).to_pandas(types_mapper=_NULLABLE.get)
    return df


def flows(path: str, *, errors: str = "raise") -> pd.DataFrame:
    """One row per TCP flow (Wireshark `tcp.stream`), indexed by stream (docs/tables.md)."""
    res = tables.check(tables.scan_flows(path), errors)
    return frame(res.flows).set_index("stream", drop=False).rename_axis(None)


def iter_packets(path: str, *, chunk_rows: int = 1_000_000, errors: str = "raise") -> Iterator[pd.DataFrame]:
    """The packets table in DataFrames of at most `chunk_rows` rows (bounded memory)."""
    chunks = tables.PacketChunks(path, chunk_rows)
    for chunk in chunks:
        yield frame(chunk["packets"])
    assert chunks.result is not None
    tables.check(chunks.result, errors)


def packets(path: str, *, errors: str = "raise") -> pd.DataFrame:
    """One row per TCP segment (docs/tables.md)."""
    return join(list(iter_packets(path, errors=errors)), frame(tables.schema("packets").empty_table()))


def join(parts: list[pd.DataFrame], empty: pd.DataFrame) -> pd.DataFrame:
    """One table from per-chunk frames (`empty` when there are none)."""
    if not parts:
        return empty
    df = pd.concat(parts, ignore_index=True)
    for col in ("src", "dst"):  # address categories differ per chunk; concat leaves object
        if col in df:
            df[col] = df[col].astype("category")
    return df


EVENT_COLUMNS = ["frame", "stream", "time", "kind", "scope", "related_frame", "message"]


def events_frame(events: pa.Table, findings: pa.Table, packets: pd.DataFrame) -> pd.DataFrame:
    """The engine's packet events and each flow finding at its first evidence frame (time
    of that frame), ordered by frame."""
    ev = frame(events)
    ev.insert(4, "scope", "packet")
    f = findings.select(["stream", "id", "frames", "message"]).to_pydict()
    first = [fr[0] if fr else 0 for fr in f["frames"]]
    times = packets.set_index("frame")["ts"]
    times = times[~times.index.duplicated()]
    flow = pd.DataFrame({
        "frame": pd.array(first, dtype="uint64"), "stream": pd.array(f["stream"], dtype="uint32"),
        "time": times.reindex(first).to_numpy(), "kind": f["id"], "scope": "flow",
        "related_frame": pd.array([None] * len(first), dtype="UInt64"), "message": f["message"],
    })
    out = pd.concat([ev, flow], ignore_index=True) if len(flow) else ev
    kinds = ev["kind"].cat.categories if len(ev.columns) else []
    out["kind"] = pd.Categorical(out["kind"].astype(str), categories=kinds)
    out["scope"] = pd.Categorical(out["scope"], categories=["packet", "flow"])
    out["time"] = pd.to_datetime(out["time"], utc=True)
    return out.sort_values(["frame", "kind"], kind="stable", ignore_index=True)[EVENT_COLUMNS]
