"""Builds a flow's graphs from the analysis: picks the data each graph needs once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcpdiag.report import plots, series as series_mod
from tcpdiag.report.packets import flow_packets

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from tcpdiag.analysis import Analysis


def figures(a: "Analysis", stream: int, kinds=plots.KINDS, ceiling_bps: float | None = None) -> dict[str, "go.Figure"]:
    fp = flow_packets(a, stream)
    s = series_mod.build(a, stream)
    facts = a.verdicts[stream].facts
    make = {
        "sequence": lambda: plots.sequence(fp),
        "flight": lambda: plots.flight(s, stream),
        "throughput": lambda: plots.throughput(s, stream, ceiling_bps),
        "rtt": lambda: plots.rtt(s, stream, facts.get("min_rtt_ms")),
    }
    for k in kinds:
        if k not in make:
            raise ValueError(f"unknown graph kind {k!r}: {', '.join(plots.KINDS)}")
    return {k: make[k]() for k in kinds}


def figure(a: "Analysis", stream: int, kind: str) -> "go.Figure":
    from tcpdiag.report.model import build

    ceiling = None
    if kind == "throughput":
        ceiling = build(a, streams=[stream])[0].ceiling.ceiling_bps
    return figures(a, stream, (kind,), ceiling)[kind]
