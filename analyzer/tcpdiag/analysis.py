"""`tcpdiag.analyze(path)`: the diagnosis as Python objects for reports and notebooks.

One pass gives the flows table with each flow's verdict (bounded memory, any capture
size). The per-packet analysis (`.packets`) is read on first use, in a second pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tcpdiag import _native, tables
from tcpdiag.catalogue import FINDINGS
from tcpdiag.report.mixin import ReportMixin

#: Limit-state codes of the `limit` column (analyse::notes::LimitState).
LIMIT_STATES = ["unknown", "rwnd", "zero_window", "recovery", "cwnd", "sndbuf", "app", "idle"]
#: Retransmission kinds of the `retrans` column.
RETRANS_KINDS = ["", "fast", "rto", "tlp", "other"]
#: `spurious_by` evidence codes.
EVIDENCE = ["", "dsack", "eifel"]
#: `rwnd_basis` codes.
RWND_BASIS = ["known", "not_negotiated", "inferred"]
#: `cwnd_conf` codes.
CWND_CONFIDENCE = ["none", "bound", "estimate"]


@dataclass
class Finding:
    """One finding of a flow: a catalogue entry filled with this flow's evidence."""

    id: str
    share: float
    frames: list[int]
    values: dict[str, Any]

    @property
    def entry(self) -> dict[str, str]:
        return FINDINGS[self.id]

    @property
    def field(self) -> str:
        return self.entry["field"]

    @property
    def severity(self) -> str:
        return self.entry["severity"]

    @property
    def message(self) -> str:
        return format_message(self.entry["message"], self.values)

    @property
    def remedy(self) -> str:
        return format_message(self.entry.get("remedy", ""), self.values)


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.1f}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)


class _Missing(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def format_message(template: str, values: dict[str, Any]) -> str:
    """Fills a catalogue message; numbers get thousands separators, unknowns show '?'."""
    return template.format_map(_Missing({k: _fmt(v) for k, v in values.items()}))


@dataclass
class FlowVerdict:
    """The verdict of one flow: time shares per limit state, findings (primary first)."""

    stream: int
    data_dir: int
    vantage: str
    shares: dict[str, float]
    findings: list[Finding]
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def primary(self) -> Finding:
        return self.findings[0]

    @classmethod
    def from_native(cls, d: dict[str, Any]) -> "FlowVerdict":
        findings = [Finding(f["id"], f["share"], list(f["frames"]), dict(f["values"])) for f in d["findings"]]
        facts = {k: v for k, v in d.items() if k not in ("stream", "data_dir", "vantage", "shares", "findings")}
        return cls(d["stream"], d["data_dir"], d["vantage"], dict(d["shares"]), findings, facts)


class Analysis(ReportMixin):
    """The diagnosis of one capture (see `tcpdiag.analyze`)."""

    def __init__(self, path: str | list[str], *, vantage: str | None = None, errors: str = "raise",
                 **scale: Any) -> None:
        self.path = path
        self.vantage = vantage
        raw = _scaled(path, vantage, scale) if scale or not isinstance(path, str) else _native.analyze(path, vantage)
        self.engine = raw.get("engine", {})
        res = tables._result(raw.get("file", path), {k: raw[k] for k in ("flows", "stats", "error")})
        tables.check(res, errors)
        self.scan = res
        # Converted from the end, each native dict released once converted: on a million
        # flows the dicts and the objects made from them do not coexist.
        pending = raw.pop("verdicts")
        built = []
        while pending:
            built.append(FlowVerdict.from_native(pending.pop()))
        self.verdicts = {v.stream: v for v in reversed(built)}

    @property
    def stats(self) -> dict[str, Any]:
        return self.scan.stats

    @cached_property
    def flows(self):
        """Flows table (pandas) with the verdict columns: `verdict`, `vantage`, shares."""
        import pandas as pd

        from tcpdiag.api import flows_frame

        df = flows_frame(self.scan.flows)
        v = [self.verdicts[s] for s in df["stream"]]
        df["verdict"] = [x.primary.id for x in v]
        df["verdict_message"] = [x.primary.message for x in v]
        df["vantage"] = [x.vantage for x in v]
        df["data_dir"] = [x.data_dir for x in v]
        for state in LIMIT_STATES[1:]:
            df[f"share_{state}"] = [x.shares.get(state, 0.0) for x in v]
        for k in ("min_rtt_ms", "srtt_ms", "goodput_bps", "retrans", "spurious", "dsacks", "reorder_events",
                  "recoveries", "zero_windows", "rwnd_max"):
            df[k] = pd.array([x.facts.get(k) for x in v], dtype="Float64" if k.endswith(("ms", "bps")) else "Int64")
        return df

    def windows_state(self, stream: int):
        """Windows' own sender state (cwnd, send window, SRTT, RTO …) for one flow, from the
        Microsoft-Windows-TCPIP events of an ETL trace; empty otherwise (`tcpdiag.etl`)."""
        from tcpdiag.etl import windows_state

        return windows_state(self, stream)

    @cached_property
    def packets(self):
        """Every TCP segment with the analysis columns (a second pass over the capture)."""
        from tcpdiag.api import analysis_frame, join_chunks
        from tcpdiag.errors import CaptureIOError

        for p in [self.path] if isinstance(self.path, str) else self.path:
            if not tables.rereadable(p):
                raise CaptureIOError(p, "standard input, a FIFO or a pipe gives its bytes once, and the analysis "
                                        "read them; save the capture to a file to read its packets too", kind="io")

        chunks = _native.PacketChunks(self.path, 1_000_000, True, self.vantage)
        return join_chunks([analysis_frame(c) for c in chunks], analysis_frame(None))


def analyze(path: str | list[str], *, vantage: str | None = None, errors: str = "raise", **scale: Any) -> Analysis:
    """Diagnoses every TCP flow of a capture. `vantage`: sender, receiver, middle, or None
    to infer it per flow. A list of paths is one capture cut in pieces (merged by time);
    `jobs`, `filter`, `idle_timeout`, `close_grace`: see `tcpdiag.fleet` and docs/scaling.md."""
    return Analysis(path, vantage=vantage, errors=errors, **scale)


def _scaled(path: str | list[str], vantage: str | None, scale: dict[str, Any]) -> dict:
    from tcpdiag.fleet import native_scaled

    return native_scaled(path, vantage, **scale)
