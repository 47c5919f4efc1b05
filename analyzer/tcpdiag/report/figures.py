"""Builds a flow's graphs from the analysis: picks the data each graph needs once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcpdiag.report import plots
from tcpdiag.report.packets import flow_packets

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from tcpdiag.analysis import Analysis


def figures(a: "Analysis", stream: int, kinds=plots.KINDS) -> dict[str, "go.Figure"]:
    for k in kinds:
        if k not in plots.KINDS:
            raise ValueError(f"unknown graph kind {k!r}: {', '.join(plots.KINDS)}")
    row = a.verdicts[stream].row
    s = a.series(stream)
    make = {
        "sequence": lambda: plots.sequence(flow_packets(a, stream)),
        "flight": lambda: plots.flight(s, stream),
        "throughput": lambda: plots.throughput(s, stream, row["ceiling_bps"]),
        "rtt": lambda: plots.rtt(s, stream, row["min_rtt_ms"]),
    }
    return {k: make[k]() for k in kinds}


def plot(a: "Analysis", flow: int | str | None = None, kind: str = "sequence") -> "go.Figure":
    """A plotly figure of one flow: kind = sequence | flight | throughput | rtt."""
    return figures(a, a.stream_of(flow), (kind,))[kind]
