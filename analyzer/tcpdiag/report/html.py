"""The self-contained HTML report: per flow the summary and the four graphs, plotly.js
inlined once so the file works offline (no CDN). Also the notebook summary table.
"""

from __future__ import annotations

import html as esc
import json
from typing import TYPE_CHECKING

from tcpdiag import __version__
from tcpdiag.report import model, text
from tcpdiag.report.model import FlowReport, Shown
from tcpdiag.units import fmt

if TYPE_CHECKING:
    from tcpdiag.analysis import Analysis

#: Flows given graphs in one report; the rest get their summary only (use --flow N).
MAX_GRAPHED_FLOWS = 20

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#222;padding:0 16px}
h1{font-size:20px} h2{font-size:17px;margin-top:36px;border-top:1px solid #ddd;padding-top:16px}
table.tcpdiag{border-collapse:collapse;font-size:13px} table.tcpdiag td,table.tcpdiag th{padding:3px 8px;
border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.sev-warn,.sev-error{color:#b25b00;font-weight:600}.sev-note{color:#1a6f8a;font-weight:600}.sev-chat{color:#2a7a2a}
code{background:#f5f5f5;padding:0 3px} .graph{min-height:420px} .muted{color:#777}
"""


def _finding_html(f) -> str:
    filt = text.frame_filter(f.frames)
    ev = f" <code>{esc.escape(filt)}</code>" if filt else ""
    return f'<span class="sev-{f.severity}">{esc.escape(f.id)}</span>: {esc.escape(f.message)}{ev}'


def flow_summary(r: FlowReport) -> str:
    p, row = r.primary, r.row
    rows = [
        ("verdict", _finding_html(p)),
        ("remedy", esc.escape(p.remedy or "")),
        ("time", esc.escape(row["time_line"])),
        ("ceiling", "<br>".join(esc.escape(x) for x in row["ceiling_lines"])),
        ("transfer", esc.escape(row["transfer_line"])),
        ("control", esc.escape(row["cc_line"])),
        ("capture", esc.escape(f"at the {row['vantage']}; frames {row['first_frame']}–{row['last_frame']}; "
                               f"Wireshark filter tcp.stream == {r.stream}")),
    ]
    rows += [("also", _finding_html(x)) for x in r.findings[1:]]
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="tcpdiag">{body}</table>'


def summary_table(a: "Analysis", shown: Shown | None = None) -> str:
    """One row per shown flow, worst first: the notebook view of an Analysis."""
    shown = shown or model.build(a)
    head = "<tr><th>#</th><th>flow</th><th>sender → receiver</th><th>data</th><th>goodput</th><th>RTT min</th>" \
           "<th>verdict</th></tr>"
    body = "".join(
        f"<tr><td>{r.rank}</td><td>{r.stream}</td><td>{esc.escape(str(r.sender))} → {esc.escape(str(r.receiver))}</td>"
        f"<td>{fmt('size', r.row['data_bytes'])}</td><td>{fmt('rate', r.row['goodput_bps'])}</td>"
        f"<td>{fmt('ms', r.row['min_rtt_ms'])}</td><td>{_finding_html(r.primary)}</td></tr>"
        for r in shown.reports)
    more = f" ({shown.hidden:,} short flows not listed)" if shown.hidden else ""
    return (f'<div><b>{esc.escape(a.file)}</b>: {shown.total} TCP flows{more}'
            f'<table class="tcpdiag">{head}{body}</table></div>')


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def _figure_div(fig, div_id: str) -> str:
    # JSON via plotly's encoder (numpy aware); rendered by one small script per graph.
    spec = fig.to_json()
    return (f'<div id="{div_id}" class="graph"></div><script>(function(){{var f={spec};'
            f'Plotly.newPlot("{div_id}",f.data,f.layout,{{responsive:true,displaylogo:false}});}})();</script>')


def render(a: "Analysis", shown: Shown, title: str | None = None) -> str:
    from tcpdiag.report.figures import figures

    name = esc.escape(title or a.file)
    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>tcpdiag: {name}</title>",
             f"<style>{_CSS}</style><script>{_plotly_js()}</script></head><body>",
             f"<h1>tcpdiag report: {name}</h1>",
             f'<p class="muted">tcpdiag {__version__}; {a.stats.get("frames", 0):,} frames, '
             f'{shown.total} TCP flows ({len(shown.reports)} shown)</p>',
             summary_table(a, shown)]
    for i, r in enumerate(shown.reports):
        parts.append(f'<h2 id="flow-{r.stream}">#{r.rank} flow {r.stream}: {esc.escape(str(r.sender))} → '
                     f'{esc.escape(str(r.receiver))}</h2>')
        parts.append(flow_summary(r))
        if i >= MAX_GRAPHED_FLOWS:
            parts.append(f'<p class="muted">Graphs are drawn for the first {MAX_GRAPHED_FLOWS} flows; '
                         f"<code>tcpdiag analyze --flow {r.stream} --html FILE</code> draws this one.</p>")
            continue
        for kind, fig in figures(a, r.stream).items():
            parts.append(_figure_div(fig, f"g{r.stream}-{kind}"))
    parts.append(f"<script>window.tcpdiagGraphs={json.dumps(min(len(shown.reports), MAX_GRAPHED_FLOWS) * 4)};</script>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write(a: "Analysis", path: str, *, flow: int | str | None = None, show_all: bool = False,
          min_bytes: int = model.DEFAULT_MIN_BYTES, shown: Shown | None = None, title: str | None = None) -> None:
    """Writes the self-contained HTML report (plotly.js inline, works offline): the shown
    flows (or one `flow`) with their graphs."""
    if shown is None:
        streams = None if flow is None else [a.stream_of(flow)]
        shown = model.build(a, min_bytes=min_bytes, show_all=show_all, streams=streams)
    with open(path, "w", encoding="utf-8") as f:
        f.write(render(a, shown, title))
