"""The self-contained HTML report: per flow the summary and the four graphs, plotly.js
inlined once so the file works offline (no CDN). Also the notebook summary table.
"""

from __future__ import annotations

import html as esc
import json
from typing import TYPE_CHECKING

from tcpdiag import __version__
from tcpdiag.report import text, units
from tcpdiag.report.model import STATE_WORDS, FlowReport

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
    f, p = r.facts, r.primary
    shares = ", ".join(f"{STATE_WORDS.get(k, k)} {v:.0%}" for k, v in r.busy_states())
    rows = [
        ("verdict", _finding_html(p)),
        ("remedy", esc.escape(p.remedy or "")),
        ("time", esc.escape(shares)),
        ("ceiling", "<br>".join(esc.escape(x) for x in r.ceiling.lines)),
        ("transfer", esc.escape(f"{units.size(r.data_bytes)} in {units.seconds(r.duration_s)} = "
                                f"{units.rate(r.goodput_bps)} goodput; RTT min {units.ms(f.get('min_rtt_ms'))} / "
                                f"avg {units.ms(f.get('mean_rtt_ms'))}; {f.get('retrans', 0)} retransmissions")),
        ("capture", esc.escape(f"at the {r.vantage}; frames {r.first_frame}–{r.last_frame}; "
                               f"Wireshark filter tcp.stream == {r.stream}")),
    ]
    rows += [("also", _finding_html(x)) for x in r.findings[1:]]
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="tcpdiag">{body}</table>'


def summary_table(reports: list[FlowReport], capture: str) -> str:
    """One row per flow, worst first: the notebook view of an Analysis."""
    head = "<tr><th>#</th><th>flow</th><th>sender → receiver</th><th>data</th><th>goodput</th><th>RTT min</th>" \
           "<th>verdict</th></tr>"
    body = "".join(
        f"<tr><td>{r.rank}</td><td>{r.stream}</td><td>{esc.escape(str(r.sender))} → {esc.escape(str(r.receiver))}</td>"
        f"<td>{units.size(r.data_bytes)}</td><td>{units.rate(r.goodput_bps)}</td>"
        f"<td>{units.ms(r.facts.get('min_rtt_ms'))}</td><td>{_finding_html(r.primary)}</td></tr>"
        for r in reports)
    return (f'<div><b>{esc.escape(capture)}</b>: {len(reports)} TCP flows'
            f'<table class="tcpdiag">{head}{body}</table></div>')


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def _figure_div(fig, div_id: str) -> str:
    # JSON via plotly's encoder (numpy aware); rendered by one small script per graph.
    spec = fig.to_json()
    return (f'<div id="{div_id}" class="graph"></div><script>(function(){{var f={spec};'
            f'Plotly.newPlot("{div_id}",f.data,f.layout,{{responsive:true,displaylogo:false}});}})();</script>')


def render(a: "Analysis", reports: list[FlowReport], title: str | None = None) -> str:
    from tcpdiag.report.figures import figures

    name = esc.escape(title or a.path)
    shown = [r for r in reports if r.hidden is None]
    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>tcpdiag: {name}</title>",
             f"<style>{_CSS}</style><script>{_plotly_js()}</script></head><body>",
             f"<h1>tcpdiag report: {name}</h1>",
             f'<p class="muted">tcpdiag {__version__}; {a.stats.get("frames", 0):,} frames, '
             f'{len(reports)} TCP flows ({len(shown)} shown)</p>',
             summary_table(shown, title or a.path)]
    for i, r in enumerate(shown):
        parts.append(f'<h2 id="flow-{r.stream}">#{r.rank} flow {r.stream}: {esc.escape(str(r.sender))} → '
                     f'{esc.escape(str(r.receiver))}</h2>')
        parts.append(flow_summary(r))
        if i >= MAX_GRAPHED_FLOWS:
            parts.append(f'<p class="muted">Graphs are drawn for the first {MAX_GRAPHED_FLOWS} flows; '
                         f"<code>tcpdiag analyze --flow {r.stream} --html FILE</code> draws this one.</p>")
            continue
        for kind, fig in figures(a, r.stream, ceiling_bps=r.ceiling.ceiling_bps).items():
            parts.append(_figure_div(fig, f"g{r.stream}-{kind}"))
    parts.append(f"<script>window.tcpdiagGraphs={json.dumps(min(len(shown), MAX_GRAPHED_FLOWS) * 4)};</script>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write(a: "Analysis", reports: list[FlowReport], path: str, title: str | None = None) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(render(a, reports, title))
