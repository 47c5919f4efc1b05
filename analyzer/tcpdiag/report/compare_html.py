"""The HTML report of a comparison: per pair the findings with evidence frames in both
captures and, per direction, one graph of the one-way delay between the capture points
with every loss marked where it happened (before, between, after the points). plotly.js
inlined once, so the file works offline. Needs the per-segment fates (`fates=True`).
"""

from __future__ import annotations

import html as esc
from typing import TYPE_CHECKING

import numpy as np

from tcpdiag import __version__
from tcpdiag.report import text as text_report
from tcpdiag.report.compare import _DIRS, _ranked, clock_line
from tcpdiag.report.html import _CSS, _figure_div, _plotly_js

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from tcpdiag.comparison import Comparison, Pair

#: Pairs given graphs in one report.
MAX_GRAPHED_PAIRS = 10
#: Delivered segments drawn per direction (evenly thinned beyond).
MAX_POINTS = 20_000
_LOSS_STYLE = {"lost_before": ("triangle-left", "#8e44ad"), "lost_between": ("x", "#c0392b"),
               "lost_after": ("triangle-right", "#d35400")}


def delay_figure(c: "Comparison", pair: int, d: int) -> "go.Figure":
    """One-way delay (ms) of direction `d` of `pair` over time (s since its first segment at
    A), losses marked at the delay axis' floor, reordered segments highlighted."""
    import plotly.graph_objects as go
    import pyarrow as pa
    import pyarrow.compute as pc

    assert c.fate_table is not None, "needs compare(a, b, fates=True)"
    t = c.fate_table
    t = t.filter(pc.and_(pc.equal(t.column("pair"), pair), pc.equal(t.column("dir"), d)))
    cols = t.select(["frame_a", "frame_b", "fate", "owd_ms", "late_ms", "rel_seq", "evidence_a", "evidence_b"]).to_pydict()
    ta, tb = (t.column(k).cast(pa.int64()).to_pylist() for k in ("time_a", "time_b"))
    offset = c.clock["offset_ns"]
    # Time of each row in A's clock (B's times moved by the offset); a segment seen in
    # neither capture (lost before the first) at the time of its evidence (the retransmission).
    times = [x if x is not None else (y - offset if y is not None else None) for x, y in zip(ta, tb)]
    at_a = {f: x for f, x in zip(cols["frame_a"], ta) if f is not None and x is not None}
    at_b = {f: y - offset for f, y in zip(cols["frame_b"], tb) if f is not None and y is not None}
    for i, x in enumerate(times):
        if x is None:
            times[i] = at_a.get(cols["evidence_a"][i], at_b.get(cols["evidence_b"][i]))
    known = [x for x in times if x is not None]
    t0 = min(known) if known else 0
    na, nb = c.names
    fig = go.Figure()
    dl = [i for i, f in enumerate(cols["fate"]) if f == "delivered" and cols["owd_ms"][i] is not None]
    if len(dl) > MAX_POINTS:
        dl = dl[:: len(dl) // MAX_POINTS + 1]
    floor = min((cols["owd_ms"][i] for i in dl), default=0.0)

    def trace(rows: list[int], name: str, symbol: str, colour: str, y=None) -> None:
        x = np.array([(times[i] - t0) / 1e9 if times[i] is not None else np.nan for i in rows])
        yy = np.array([cols["owd_ms"][i] for i in rows] if y is None else [y] * len(rows), dtype=float)
        txt = [f"{na} frame {cols['frame_a'][i] or '–'}, {nb} frame {cols['frame_b'][i] or '–'}, "
               f"seq {cols['rel_seq'][i]}" for i in rows]
        fig.add_trace(go.Scatter(x=x, y=yy, mode="markers", name=f"{name} ({len(rows)})", text=txt,
                                 marker=dict(symbol=symbol, color=colour, size=5 if y is None else 9),
                                 hovertemplate="%{text}<br>%{y:.3f} ms at %{x:.6f} s<extra>" + name + "</extra>"))

    in_order = [i for i in dl if cols["late_ms"][i] is None]
    late = [i for i in dl if cols["late_ms"][i] is not None]
    trace(in_order, "one-way delay", "circle", "#2c7fb8")
    if late:
        trace(late, "reordered between the points", "diamond", "#e6550d")
    for fate, (symbol, colour) in _LOSS_STYLE.items():
        rows = [i for i, f in enumerate(cols["fate"]) if f == fate]
        if rows:
            trace(rows, fate.replace("_", " "), symbol, colour, y=floor)
    fig.update_layout(title=dict(text=f"pair {pair}, {_DIRS[d]}: one-way delay and losses", x=0.01),
                      template="plotly_white", height=380, margin=dict(l=70, r=20, t=50, b=45),
                      hovermode="closest", legend=dict(orientation="h", y=-0.2, x=0))
    fig.update_xaxes(title_text=f"seconds since the direction's first segment ({na}'s clock)")
    fig.update_yaxes(title_text="one-way delay between the points, ms")
    return fig


def _pair_html(c: "Comparison", p: "Pair") -> str:
    na, nb = c.names
    rows = []
    for f in p.findings:
        ev = []
        if f.frames_a:
            ev.append(f"{esc.escape(na)}: <code>{esc.escape(text_report.frame_filter(f.frames_a))}</code>")
        if f.frames_b:
            ev.append(f"{esc.escape(nb)}: <code>{esc.escape(text_report.frame_filter(f.frames_b))}</code>")
        rem = f"<br><span class=\"muted\">{esc.escape(f.remedy)}</span>" if f.remedy else ""
        rows.append(f'<tr><th class="sev-{f.severity}">{esc.escape(f.id)}</th><td>{esc.escape(f.message)}{rem}'
                    f'{"<br>" + " ".join(ev) if ev else ""}</td></tr>')
    return f'<table class="tcpdiag">{"".join(rows)}</table>'


def render(c: "Comparison") -> str:
    na, nb = c.names
    title = f"{c.paths[0]} ↔ {c.paths[1]}"
    parts = [f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>tcpdiag compare: {esc.escape(title)}</title>',
             f"<style>{_CSS}</style><script>{_plotly_js()}</script></head><body>",
             f"<h1>tcpdiag compare: {esc.escape(na)} = {esc.escape(c.paths[0])}, {esc.escape(nb)} = "
             f"{esc.escape(c.paths[1])}</h1>",
             f'<p class="muted">tcpdiag {__version__}; {c.matched} flows matched, {c.only_a} only in {esc.escape(na)}, '
             f"{c.only_b} only in {esc.escape(nb)}</p>",
             f"<p>{esc.escape(clock_line(c))}</p>"]
    graphs = 0
    for n in _ranked(c):
        p = c.pair(n)
        r = p.row
        head = (f"pair {n}: {esc.escape(str(r['client_a'] or r['client_b']))} → "
                f"{esc.escape(str(r['server_a'] or r['server_b']))}")
        parts.append(f'<h2 id="pair-{n}">{head}</h2>')
        parts.append(_pair_html(c, p))
        if not p.matched:
            continue
        if graphs // 2 >= MAX_GRAPHED_PAIRS:
            parts.append(f'<p class="muted">Graphs are drawn for the first {MAX_GRAPHED_PAIRS} pairs.</p>')
            continue
        for d in (0, 1):
            parts.append(_figure_div(delay_figure(c, n, d), f"p{n}-d{d}"))
            graphs += 1
    parts.append(f"<script>window.tcpdiagGraphs={graphs};</script></body></html>")
    return "\n".join(parts)


def write(c: "Comparison", path: str) -> None:
    """Writes the self-contained HTML report of a comparison."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(render(c))
