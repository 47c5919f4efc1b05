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

from tcpdiag import _native

#: Seconds of capture time after which an idle flow is judged and its state dropped.
DEFAULT_IDLE_TIMEOUT = 300.0
#: Seconds after which a closed flow (RST, or FIN both ways) is judged.
DEFAULT_CLOSE_GRACE = 1.0

#: Columns the fleet table adds in front of / after the analysis' flows table.
FLEET_COLUMNS = {
    "capture": "The capture file (for --merge: the pieces joined with '+')",
    "limited_s": "Seconds the primary finding explains: busy time × its share (the sort key)",
    "busy_s": "Seconds the data direction had data outstanding or waiting",
}


def native_scaled(path: str | list[str], vantage: str | None = None, *, jobs: int = 1,
                  filter: str | None = None, idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
                  close_grace: float = DEFAULT_CLOSE_GRACE) -> dict:
    """`_native.analyze_scaled` with the failing piece named in the result's `file`."""
    paths = [path] if isinstance(path, str) else list(path)
    raw = _native.analyze_scaled(paths, jobs, vantage, filter, idle_timeout, close_grace)
    err = raw.get("error")
    raw["file"] = paths[err.get("input", 0)] if err else capture_label(paths)
    return raw


def capture_label(paths: list[str]) -> str:
    return paths[0] if len(paths) == 1 else "+".join(paths)


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
    """The flows table (pandas) of one capture with its verdict columns and the fleet
    columns. Runs anywhere tcpdiag is installed: this is the task a Dask worker runs."""
    import pandas as pd

    from tcpdiag.analysis import analyze

    a = analyze(path, vantage=vantage, errors=errors, **scale)
    df = a.flows.reset_index(drop=True)
    busy = [a.verdicts[s].facts.get("busy_s", 0.0) for s in df["stream"]]
    share = [a.verdicts[s].primary.share for s in df["stream"]]
    df.insert(0, "capture", capture_label([path] if isinstance(path, str) else list(path)))
    df["busy_s"] = pd.array(busy, dtype="float64")
    df["limited_s"] = df["busy_s"] * pd.array(share, dtype="float64")
    df.loc[df["verdict"] == "not_limited", "limited_s"] = 0.0
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

        parts, errs = map_on_cluster(cluster, units, vantage=vantage, errors=errors, jobs=jobs, **scale)
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
        from tcpdiag.api import flows_frame

        df = flows_frame({k: [] for k in _EMPTY_FLOW_KEYS}).reset_index(drop=True)
        df.insert(0, "capture", pd.Series([], dtype="object"))
        for c in ("verdict", "limited_s", "goodput_bps"):
            df[c] = pd.Series([], dtype="float64" if c != "verdict" else "object")
    fleet.flows = worst_first(df)
    return fleet


_EMPTY_FLOW_KEYS = [
    "stream", "a_addr", "a_port", "b_addr", "b_port", "first_frame", "last_frame", "start", "duration_s",
    "packets_ab", "packets_ba", "bytes_ab", "bytes_ba", "payload_ab", "payload_ba", "handshake",
    "syn_frame_a", "syn_frame_b", "mss_a", "mss_b", "wscale_a", "wscale_b", "wscale_in_effect",
    "sack_permitted", "timestamps", "ecn", "fin_a", "fin_b", "rst_a", "rst_b",
]
