"""Many captures at once: one flows table for a fleet of hosts, worst flows first.

    >>> import tcpdiag.fleet as fleet
    >>> f = fleet.analyze_fleet(["a.pcapng", "b.pcapng"], jobs=2)
    >>> f.flows          # one row per flow of every capture, `capture` column first
    >>> f.hosts          # per server host and verdict: flows and time lost, worst first

Each capture is analysed on its own (with `jobs` threads), locally or, with
`cluster="tcp://host:8786"`, as one task per capture on a Dask cluster
(`tcpdiag.cluster`). `merge=True` reads all captures as one, in timestamp order (rotated
pieces of one capture, `tcpdump -C/-G`). See docs/scaling.md.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from typing import Any, Iterable

from tcpdiag.tables import capture_label

#: The column the fleet table adds in front of the analysis' flows table.
FLEET_COLUMNS = {
    "capture": "The capture file (for --merge: the pieces joined with '+')",
}


def expand(patterns: Iterable[str]) -> list[str]:
    """Paths and globs (`**` recursive) → capture paths, in the given order, sorted within
    a glob. A pattern matching nothing is kept as is, so its error names it."""
    out: list[str] = []
    for p in patterns:
        if p != "-" and any(c in p for c in "*?["):
            hits = sorted(h for h in glob.glob(p, recursive=True) if os.path.isfile(h))
            out.extend(hits or [p])
        else:
            out.append(p)
    return out


def flows_rows(path: str | list[str], *, vantage: str | None = None, errors: str = "warn", **scale: Any):
    """The flows table (pandas) of one capture with its verdict columns and the capture's
    name in front. Runs anywhere tcpdiag is installed: this is the task a Dask worker runs."""
    from tcpdiag.analysis import analyze

    a = analyze(path, vantage=vantage, errors=errors, **scale)
    df = a.flows.reset_index(drop=True)
    df.insert(0, "capture", capture_label([path] if isinstance(path, str) else list(path)))
    df.attrs["engine"] = a.engine
    df.attrs["warnings"] = a.scan.warnings()
    return df


@dataclass
class Fleet:
    """The fleet's flows (worst first) and per-host summary."""

    flows: Any
    #: Captures that yielded nothing: file → (message, CLI exit code).
    errors: dict[str, tuple[str, int]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def hosts(self):
        """Per server (endpoint B) and primary verdict: flows, time lost, goodput."""
        df = self.flows
        if df.empty:
            return df.iloc[0:0]
        g = df.groupby(["b_addr", "verdict"], sort=False, observed=True)
        out = g.agg(flows=("stream", "size"), limited_s=("limited_s", "sum"),
                    median_goodput_bps=("goodput_bps", "median"), captures=("capture", "nunique")).reset_index()
        return out.sort_values(["limited_s", "flows"], ascending=False, kind="stable").reset_index(drop=True)


def worst_first(df):
    """Sorts flows by time lost to their primary limit, then slowest goodput."""
    return df.sort_values(["limited_s", "goodput_bps", "capture", "stream"], ascending=[False, True, True, True],
                          na_position="last", kind="stable").reset_index(drop=True)


def analyze_fleet(paths: Iterable[str], *, jobs: int = 1, merge: bool = False, cluster: str | None = None,
                  vantage: str | None = None, errors: str = "warn", **scale: Any) -> Fleet:
    """Analyses every capture (globs expanded) and joins the flows tables, worst first.

    A capture that cannot be read at all is listed in `.errors` and skipped; a damaged one
    contributes the flows before the damage (`errors="warn"`) or raises (`"raise"`)."""
    import pandas as pd

    from tcpdiag.errors import CaptureError

    files = expand(paths)
    units: list[str | list[str]] = [files] if merge else list(files)
    fleet = Fleet(flows=None)
    if cluster:
        from tcpdiag.cluster import map_on_cluster

        parts, errs = map_on_cluster(cluster, flows_rows, units, vantage=vantage, errors=errors, jobs=jobs, **scale)
        fleet.errors.update(errs)
    else:
        parts = []
        for u in units:
            try:
                parts.append(flows_rows(u, vantage=vantage, errors=errors, jobs=jobs, **scale))
            except CaptureError as e:
                if errors == "raise":
                    raise
                fleet.errors[e.file] = (str(e), e.exit_code)
    for p in parts:
        fleet.warnings.extend(p.attrs.get("warnings", []))
    if parts:
        frames = [p for p in parts if not p.empty] or parts[:1]
        for p in frames:
            p.attrs = {}
        df = pd.concat(frames, ignore_index=True)
    else:
        from tcpdiag import tables
        from tcpdiag.api import frame

        df = frame(tables.schema("verdict").empty_table())
        df.insert(0, "capture", pd.Series([], dtype="object"))
    fleet.flows = worst_first(df)
    return fleet
