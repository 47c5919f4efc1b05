"""`tcpdiag.analyze(path)`: the diagnosis of a capture as data.

One pass gives the flows table with each flow's verdict and the findings table (bounded
memory, any capture size): the engine decided every verdict, rendered every message and
did every piece of arithmetic; this module only holds and indexes what it returned. The
per-packet tables (`packets`, `events`, `series`) come on first use, in a second pass.
Reporters (tcpdiag.report.*) are functions over an `Analysis`.
"""

from __future__ import annotations

import operator
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Iterator

from tcpdiag import _native, selection, tables

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


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


class _Pieces:
    """A table as the engine's batches, read a slice of rows at a time without pyarrow."""

    def __init__(self, batches: list[_native.Batch]) -> None:
        self.batches = batches
        self.starts = [0]
        for b in batches:
            self.starts.append(self.starts[-1] + b.num_rows)

    def rows(self, lo: int, n: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        hi = lo + n
        for b, start in zip(self.batches, self.starts):
            if start < hi and lo < start + b.num_rows:
                out += b.rows(max(lo - start, 0), min(hi, start + b.num_rows) - max(lo, start))
        return out


class Verdicts(Mapping[int, FlowVerdict]):
    """stream → FlowVerdict, built on access (a capture may hold a million flows)."""

    def __init__(self, flows: list[_native.Batch], findings: list[_native.Batch]) -> None:
        # Both tables are in stream order: a flow is found by bisection, its findings are
        # one slice.
        self._flows, self._findings = _Pieces(flows), _Pieces(findings)
        self._streams: list[int] = tables.column(flows, "stream")
        self._f_streams: list[int] = tables.column(findings, "stream")

    def _index(self, stream: int) -> int | None:
        i = bisect_left(self._streams, stream)
        return i if i < len(self._streams) and self._streams[i] == stream else None

    def __contains__(self, stream: object) -> bool:
        try:
            return self._index(operator.index(stream)) is not None  # type: ignore[arg-type]
        except TypeError:
            return False

    def __getitem__(self, stream: int) -> FlowVerdict:
        s = int(stream)
        i = self._index(s)
        if i is None:
            raise KeyError(stream)
        row = self._flows.rows(i, 1)[0]
        lo = bisect_left(self._f_streams, s)
        hi = bisect_right(self._f_streams, s)
        found = [Finding.from_row(r) for r in self._findings.rows(lo, hi - lo)]
        return FlowVerdict(s, row, found)

    def __iter__(self) -> Iterator[int]:
        return iter(self._streams)

    def __len__(self) -> int:
        return len(self._streams)

    def rows(self, streams: list[int]) -> list[FlowVerdict]:
        return [self[s] for s in streams]

    def at(self, positions: Sequence[int]) -> list[FlowVerdict]:
        """The verdicts of the flows at these rows of the flows table, in that order. Few
        flows are looked up one by one; many are turned into Python a batch at a time (a
        million flows: seconds, not many minutes)."""
        if len(positions) * 16 < len(self._streams):
            return [self[self._streams[i]] for i in positions]
        rows = self._flows.rows(0, len(self._streams))
        found: dict[int, list[Finding]] = {}
        for r in self._findings.rows(0, self._findings.starts[-1]):
            found.setdefault(r["stream"], []).append(Finding.from_row(r))
        return [FlowVerdict(self._streams[i], rows[i], found.get(self._streams[i], [])) for i in positions]


class Analysis:
    """The diagnosis of one capture (see `tcpdiag.analyze`).

    `flow_table` / `finding_table` are the engine's Arrow tables (pyarrow, made on first use
    from `flow_batches` / `finding_batches`); `flows`, `findings`, `packets`, `events`,
    `sacks` and `series(flow)` are pandas views of them."""

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
        #: The engine's batches of the flows and findings tables (pyarrow loads only for
        #: `flow_table`, `finding_table` and what is built on them).
        self.flow_batches: list[_native.Batch] = res.flow_batches
        self.finding_batches: list[_native.Batch] = res.extra.pop("findings")
        self.verdicts = Verdicts(self.flow_batches, self.finding_batches)

    @cached_property
    def flow_table(self) -> pa.Table:
        return self.scan.flows

    @cached_property
    def finding_table(self) -> pa.Table:
        return tables.table(self.finding_batches, "findings")

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
        import pyarrow as pa

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
            stream = selection.worst(self.flow_batches)
            if stream is None:
                raise ValueError(f"{self.file}: no TCP flow")
            return stream
        found = selection.select_streams(self.flow_batches, str(flow))
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
