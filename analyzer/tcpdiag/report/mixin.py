"""Report methods of `tcpdiag.Analysis`: series, events, the text report, graphs and the
notebook view. Kept here so analysis.py stays about the diagnosis itself.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from tcpdiag.report import model

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go


class ReportMixin:
    path: str
    verdicts: dict

    def _stream(self, flow: int | str | None) -> int:
        """A flow given as tcp.stream, 'IP:port-IP:port', or None for the worst flow."""
        if flow is None:
            reports = model.build(self)  # type: ignore[arg-type]
            if not reports:
                raise ValueError(f"{self.path}: no TCP flow")
            shown = [r for r in reports if r.hidden is None] or reports
            return shown[0].stream
        if isinstance(flow, int):
            flow = str(flow)
        found = model.select_streams(self.scan.flows, flow)  # type: ignore[attr-defined]
        if len(found) > 1:
            raise ValueError(f"{flow} names flows {found}: pass one tcp.stream number")
        return found[0]

    def flow_reports(self, *, target_rate: str | float | None = None, show_all: bool = True) -> list[model.FlowReport]:
        """Every flow's report model, worst first (what the text, JSON and HTML render)."""
        from tcpdiag.report.units import parse_rate

        bps = parse_rate(target_rate) if isinstance(target_rate, str) else target_rate
        return model.build(self, target_bps=bps, show_all=show_all)  # type: ignore[arg-type]

    def report(self, flow: int | str | None = None, *, target_rate: str | float | None = None) -> str:
        """The terminal report as text: one flow, or every flow worst first when None."""
        from tcpdiag.report import text
        from tcpdiag.report.units import parse_rate

        bps = parse_rate(target_rate) if isinstance(target_rate, str) else target_rate
        streams = None if flow is None else [self._stream(flow)]
        reports = model.build(self, target_bps=bps, streams=streams, show_all=True)  # type: ignore[arg-type]
        out = io.StringIO()
        text.render(reports, out, capture=self.path)
        return out.getvalue()

    def series(self, flow: int | str | None = None, *, window_s: float | None = None) -> "pd.DataFrame":
        """The flow's state over time (columns in tcpdiag.report.series.SERIES_DTYPES)."""
        from tcpdiag.report import series

        return series.build(self, self._stream(flow), window_s)  # type: ignore[arg-type]

    @property
    def events(self) -> "pd.DataFrame":
        """One row per finding event of every flow (see tcpdiag.report.events)."""
        if "_report_events" not in self.__dict__:
            from tcpdiag.report import events

            self.__dict__["_report_events"] = events.build(self)  # type: ignore[arg-type]
        return self.__dict__["_report_events"]

    def plot(self, flow: int | str | None = None, kind: str = "sequence") -> "go.Figure":
        """A plotly figure of one flow: kind = sequence | flight | throughput | rtt."""
        from tcpdiag.report import figures

        return figures.figure(self, self._stream(flow), kind)  # type: ignore[arg-type]

    def _repr_html_(self) -> str:
        from tcpdiag.report import html

        return html.summary_table(self.flow_reports(show_all=True), self.path)

    def to_html(self, path: str, *, flow: int | str | None = None, target_rate: Any = None,
                show_all: bool = False) -> None:
        """Writes the self-contained HTML report (plotly.js inline, works offline)."""
        from tcpdiag.report import html
        from tcpdiag.report.units import parse_rate

        bps = parse_rate(target_rate) if isinstance(target_rate, str) else target_rate
        streams = None if flow is None else [self._stream(flow)]
        reports = model.build(self, target_bps=bps, streams=streams, show_all=show_all)  # type: ignore[arg-type]
        html.write(self, reports, path)  # type: ignore[arg-type]
