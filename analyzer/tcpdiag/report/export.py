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
from tcpdiag.report.packets import packets

if TYPE_CHECKING:
    from tcpdiag.analysis import Analysis

TABLES = ("packets", "flows", "events", "series")


def all_series(a: "Analysis", streams: list[int] | None) -> pd.DataFrame:
    return series_mod.build_many(a, streams)


def tables(a: "Analysis", streams: list[int] | None = None) -> dict[str, pd.DataFrame]:
    """The four tables, restricted to `streams` when given."""
    wanted = list(a.verdicts) if streams is None else list(streams)
    pk, fl, ev = packets(a), a.flows, a.events
    if streams is not None:
        pk, fl, ev = pk[pk["stream"].isin(wanted)], fl[fl["stream"].isin(wanted)], ev[ev["stream"].isin(wanted)]
    return {"packets": pk, "flows": fl, "events": ev, "series": all_series(a, streams)}


def _csv(df: pd.DataFrame, path: str) -> None:
    """CSV through Arrow's writer: ~5× faster than DataFrame.to_csv on the packets table.
    Categories are written as their labels; strings are quoted, times are ISO 8601 UTC."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pa.Table.from_pandas(df, preserve_index=False)
    plain = [pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type) else f.type) for f in table.schema]
    pacsv.write_csv(table.cast(pa.schema(plain)), path)


def write(a: "Analysis", directory: str, fmt: str, streams: list[int] | None = None) -> list[str]:
    """Writes DIR/{packets,flows,events,series}.{csv,parquet}; returns the paths."""
    os.makedirs(directory, exist_ok=True)
    out = []
    for name, df in tables(a, streams).items():
        path = os.path.join(directory, f"{name}.{fmt}")
        if fmt == "csv":
            _csv(df, path)
        else:
            df.to_parquet(path, index=False)
        out.append(path)
    return out

