"""`tcpdiag.analyze(path)`: the diagnosis of a capture as data.

One pass gives the flows table with each flow's verdict and the findings table (bounded
memory, any capture size): the engine decided every verdict, rendered every message and
did every piece of arithmetic; this module only holds and indexes what it returned. The
per-packet tables (`packets`, `events`, `series`) come on first use, in a second pass.
Reporters (tcpdiag.report.*) are functions over an `Analysis`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np
import pyarrow as pa

from tcpdiag import _native, selection, tables

if TYPE_CHECKING:
    import pandas as pd


def typed_values(cells: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, str]]:
    """A finding's values column as {name: number or words} and {name: unit}."""
    values = {v["name"]: v["text"] if v["unit"] == "text" else v["number"] for v in cells}
    return values, {v["name"]: v["unit"] for v in cells}


@dataclass(frozen=True)
class Finding:
    """One finding of a flow, as the engine rendered it."""

    id: str
    field: str
    severity: str
    share: float
    message: str
    remedy: str
    frames: list[int]
    #: The numbers (or words) behind the message, by name; `units` names their units.
    values: dict[str, Any]
    units: dict[str, str]

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Finding":
        values, units = typed_values(row["values"])
        return cls(row["id"], row["field"], row["severity"], row["share"], row["message"], row["remedy"],
                   list(row["frames"]), values, units)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "field": self.field, "severity": self.severity, "share": self.share,
                "message": self.message, "remedy": self.remedy or None, "frames": list(self.frames),
                "values": dict(self.values), "units": dict(self.units)}


@dataclass(frozen=True)
class FlowVerdict:
    """One flow's verdict: its row of the flows table and its findings (primary first)."""

    stream: int
    row: dict[str, Any]
    findings: list[Finding]

    @property
    def primary(self) -> Finding:
        return self.findings[0]

    @property
    def data_dir(self) -> int:
        return self.row["data_dir"]

    @property
    def vantage(self) -> str:
        return self.row["vantage"]

    @property
    def shares(self) -> dict[str, float]:
        """Share of the busy time per limit state."""
        return {k[len("share_"):]: v for k, v in self.row.items() if k.startswith("share_")}


#: Rows turned into Python at once, and from how many flows `Verdicts.at` does so.
_SLICE = 10_000
_BULK_FROM = 1_000


class Verdicts(Mapping[int, FlowVerdict]):
    """stream → FlowVerdict, built on access (a capture may hold a million flows)."""

    def __init__(self, flows: pa.Table, findings: pa.Table) -> None:
        # Both tables are in stream order: a flow is found by bisection, its findings are
        # one slice.
        self._flows, self._findings = flows, findings
        self._streams = tables.numpy(flows.column("stream"))
        self._f_streams = tables.numpy(findings.column("stream"))

    def _index(self, stream: int) -> int | None:
        i = int(np.searchsorted(self._streams, stream))
        return i if i < len(self._streams) and self._streams[i] == stream else None

    def __contains__(self, stream: object) -> bool:
        return isinstance(stream, (int, np.integer)) and self._index(int(stream)) is not None

    def __getitem__(self, stream: int) -> FlowVerdict:
        i = self._index(int(stream))
        if i is None:
            raise KeyError(stream)
        row = tables.rows(self._flows.slice(i, 1))[0]
        lo = int(np.searchsorted(self._f_streams, stream, side="left"))
        hi = int(np.searchsorted(self._f_streams, stream, side="right"))
        found = [Finding.from_row(r) for r in self._findings.slice(lo, hi - lo).to_pylist()]
        return FlowVerdict(int(stream), row, found)

    def __iter__(self) -> Iterator[int]:
        return (int(s) for s in self._streams)

    def __len__(self) -> int:
        return len(self._streams)

    def rows(self, streams: list[int]) -> list[FlowVerdict]:
        return [self[s] for s in streams]

    def at(self, positions: Sequence[int]) -> list[FlowVerdict]:
        """The verdicts of the flows at these rows of the flows table, in that order. One
        flow is two table slices turned into Python (~0.1 ms); for many flows the tables
        are turned into Python a slice of rows at a time instead (a million flows: seconds,
        not many minutes)."""
        n = len(self._streams)
        if len(positions) < _BULK_FROM or len(positions) * 16 < n:
            return [self[int(self._streams[i])] for i in positions]
        rows: list[dict[str, Any]] = []
        for lo in range(0, n, _SLICE):
            rows += tables.rows(self._flows.slice(lo, _SLICE))
        found: dict[int, list[Finding]] = {}
        for lo in range(0, self._findings.num_rows, _SLICE):
            for r in self._findings.slice(lo, _SLICE).to_pylist():
                found.setdefault(r["stream"], []).append(Finding.from_row(r))
        return [FlowVerdict(int(self._streams[i]), rows[i], found.get(int(self._streams[i]), [])) for i in positions]


class Analysis:
    """The diagnosis of one capture (see `tcpdiag.analyze`).

    `flow_table` / `finding_table` are the engine's Arrow tables; `flows`, `findings`,
    `packets`, `events`, `sacks` and `series(flow)` are pandas views of them."""

    def __init__(self, path: str | list[str], *, vantage: str | None = None, target_rate: str | float | None = None,
                 errors: str = "raise", **scale: Any) -> None:
        from tcpdiag.units import parse_rate

        self.path = path
        self.vantage = vantage
        self.target_bps = parse_rate(target_rate) if isinstance(target_rate, str) else target_rate
        if scale or not isinstance(path, str):
            raw = tables.analyze_scaled(path, vantage, target_bps=self.target_bps, **scale)
        else:
            raw = _native.analyze(path, vantage, self.target_bps)
        res = tables.result(raw.get("file", path), raw)
        tables.check(res, errors)
        self.scan = res
        self.engine: dict[str, Any] = res.extra.pop("engine", {})
        self.flow_table: pa.Table = res.flows
        self.finding_table: pa.Table = tables.table(res.extra.pop("findings"), "findings")
        self.verdicts = Verdicts(self.flow_table, self.finding_table)

    @property
    def stats(self) -> dict[str, Any]:
        return self.scan.stats

    @property
    def file(self) -> str:
        return self.scan.file

    @cached_property
    def flows(self) -> "pd.DataFrame":
        """The flows table with each flow's verdict columns (docs/tables.md), indexed by stream."""
        from tcpdiag.api import frame

        df = frame(self.flow_table)
        return df.set_index("stream", drop=False).rename_axis(None)

    @cached_property
    def findings(self) -> "pd.DataFrame":
        """Every finding of every flow, the primary first (rank 0)."""
        from tcpdiag.api import frame

        return frame(self.finding_table)

    def windows_state(self, stream: int) -> "pd.DataFrame":
        """Windows' own sender state (cwnd, send window, SRTT, RTO …) for one flow, from the
        Microsoft-Windows-TCPIP events of an ETL trace; empty otherwise (`tcpdiag.etl`)."""
        from tcpdiag.etl import windows_state

        return windows_state(self, stream)

    # ------------------------------------------------------------ the per-packet tables

    @cached_property
    def _packet_pass(self) -> dict[str, pa.Table]:
        """One more pass over the capture: packets with the analysis columns, their SACK
        blocks, the events, and every flow's series."""
        if not isinstance(self.path, str):
            raise ValueError("per-packet tables are read from a single capture, not from merged pieces")
        if not tables.rereadable(self.path):
            from tcpdiag.errors import CaptureIOError

            raise CaptureIOError(self.path, "standard input, a FIFO or a pipe gives its bytes once, and the analysis "
                                            "read them; save the capture to a file to read its packets too", kind="io")
        series = tables.series_spec(self.flow_table)
        parts: dict[str, list[pa.Table]] = {k: [] for k in ("packets", "sacks", "events", "series")}
        for chunk in tables.PacketChunks(self.path, 1_000_000, True, self.vantage, series):
            for k, t in chunk.items():
                parts[k].append(t)
        out = {}
        for k, ts in parts.items():
            name = "analysis" if k == "packets" else k
            out[k] = pa.concat_tables(ts, promote_options="permissive") if ts else tables.empty(name)
        return out

    @cached_property
    def packets(self) -> "pd.DataFrame":
        """Every TCP segment with the analysis columns (docs/tables.md)."""
        from tcpdiag.api import frame

        return frame(self._packet_pass["packets"])

    @cached_property
    def sacks(self) -> "pd.DataFrame":
        """The SACK blocks of every ACK: frame, stream, left_raw, right_raw (first block first)."""
        from tcpdiag.api import frame

        return frame(self._packet_pass["sacks"])

    @cached_property
    def events(self) -> "pd.DataFrame":
        """One row per finding event: every packet event the engine reported, and each flow
        finding at its first evidence frame (scope "flow")."""
        from tcpdiag.api import events_frame

        return events_frame(self._packet_pass["events"], self.finding_table, self.packets)

    @cached_property
    def series_table(self) -> "pd.DataFrame":
        """Every flow's state over time (docs/tables.md: series)."""
        from tcpdiag.api import frame

        return frame(self._packet_pass["series"])

    def series(self, flow: int | str | None = None) -> "pd.DataFrame":
        """One flow's state over time: its rows of `series_table`."""
        stream = self.stream_of(flow)
        s = self.series_table
        return s[s["stream"].to_numpy() == stream].drop(columns="stream").reset_index(drop=True)

    def stream_of(self, flow: int | str | None) -> int:
        """A flow given as tcp.stream, 'IP:port-IP:port', or None for the worst shown flow."""
        if flow is None:
            stream = selection.worst(self.flow_table)
            if stream is None:
                raise ValueError(f"{self.file}: no TCP flow")
            return stream
        found = selection.select_streams(self.flow_table, str(flow))
        if len(found) > 1:
            raise ValueError(f"{flow} names flows {found}: pass one tcp.stream number")
        return found[0]

    def _repr_html_(self) -> str:
        from tcpdiag.report import html

        return html.summary_table(self)


def analyze(path: str | list[str], *, vantage: str | None = None, target_rate: str | float | None = None,
            errors: str = "raise", **scale: Any) -> Analysis:
    """Diagnoses every TCP flow of a capture. `vantage`: sender, receiver, middle, or None
    to infer it per flow; `target_rate` (e.g. "1G"): size the buffers the path needs for
    it. A list of paths is one capture cut in pieces (merged by time); `jobs`, `filter`,
    `idle_timeout`, `close_grace`: see `tcpdiag.fleet` and docs/scaling.md."""
    return Analysis(path, vantage=vantage, target_rate=target_rate, errors=errors, **scale)
