"""`analyze --csv DIR` / `--parquet DIR`: the four tables of a diagnosis as files.

    packets   every TCP segment with the analysis columns (docs/tables.md)
    flows     one row per flow with its verdict, shares and facts
    events    one row per finding event (tcpdiag.report.events)
    series    every flow's series (tcpdiag.report.series) with a `stream` column
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pandas as pd

from tcpdiag.report import series as series_mod
from tcpdiag.report.packets import by_stream, flow_packets, packets, sack_table

if TYPE_CHECKING:
    from tcpdiag.analysis import Analysis

TABLES = ("packets", "flows", "events", "series")


def all_series(a: "Analysis", streams: list[int]) -> pd.DataFrame:
    rows, sacks = by_stream(a)
    no_sack = sack_table(a).iloc[:0]
    parts = []
    for s in streams:
        if s not in rows:
            continue
        fp = flow_packets(a, s, rows[s], sacks.get(s, no_sack))
        parts.append(series_mod.build(a, s, fp=fp).assign(stream=s))
    if not parts:
        return pd.DataFrame({"stream": pd.Series(dtype="int64"), **{
            c: pd.Series(dtype=d) for c, d in series_mod.SERIES_DTYPES.items() if d != "category"}})
    out = pd.concat(parts, ignore_index=True)
    return out[["stream", *series_mod.SERIES_DTYPES]]


def tables(a: "Analysis", streams: list[int] | None = None) -> dict[str, pd.DataFrame]:
    """The four tables, restricted to `streams` when given."""
    wanted = list(a.verdicts) if streams is None else list(streams)
    pk, fl, ev = packets(a), a.flows, a.events
    if streams is not None:
        pk, fl, ev = pk[pk["stream"].isin(wanted)], fl[fl["stream"].isin(wanted)], ev[ev["stream"].isin(wanted)]
    return {"packets": pk, "flows": fl, "events": ev, "series": all_series(a, wanted)}


def write(a: "Analysis", directory: str, fmt: str, streams: list[int] | None = None) -> list[str]:
    """Writes DIR/{packets,flows,events,series}.{csv,parquet}; returns the paths."""
    os.makedirs(directory, exist_ok=True)
    out = []
    for name, df in tables(a, streams).items():
        path = os.path.join(directory, f"{name}.{fmt}")
        if fmt == "csv":
            df.to_csv(path, index=False)
        else:
            df.to_parquet(path, index=False)
        out.append(path)
    return out

