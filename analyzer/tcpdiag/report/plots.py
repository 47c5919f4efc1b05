"""The four graphs of a flow as plotly figures (`Analysis.plot`, the HTML report):

    sequence    tcptrace-style time-sequence: segments, ACK line, ACK + rwnd, SACK blocks,
                retransmissions, DSACKs, reordering and zero-window markers
    flight      bytes in flight vs rwnd vs the cwnd estimate, background shaded by limit state
    throughput  throughput and goodput over time, with the window ceiling when there is one
    rtt         RTT samples over time, with the minimum

Lines are downsampled for display (downsample.m4); event markers are always drawn in full.
SVG traces only: WebGL needs a GPU that headless browsers and some laptops lack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from tcpdiag.report import downsample as ds
from tcpdiag.report.packets import FlowPackets

if TYPE_CHECKING:
    import plotly.graph_objects as go

KINDS = ("sequence", "flight", "throughput", "rtt")
#: Background colour per limit state (light: the lines stay readable on top).
STATE_COLOURS = {
    "rwnd": "rgba(214,39,40,0.16)", "zero_window": "rgba(140,20,20,0.32)", "recovery": "rgba(255,127,14,0.22)",
    "cwnd": "rgba(31,119,180,0.10)", "sndbuf": "rgba(148,103,189,0.20)", "app": "rgba(127,127,127,0.18)", "idle": "rgba(200,200,200,0.12)",
}
#: Background buckets for the limit-state shading (each becomes at most one rectangle).
STATE_BUCKETS = 300
HEIGHT = 420


def _opaque(rgba: str) -> str:
    """The legend swatch of a shading colour: same hue, half opaque."""
    return rgba.rsplit(",", 1)[0] + ",0.5)"


def _go():
    import plotly.graph_objects as go

    return go


def _layout(fig: "go.Figure", title: str, ytitle: str) -> "go.Figure":
    fig.update_layout(title=dict(text=title, x=0.01), template="plotly_white", height=HEIGHT,
                      margin=dict(l=70, r=20, t=50, b=45), hovermode="closest",
                      legend=dict(orientation="h", y=-0.16, x=0))
    fig.update_xaxes(title_text="seconds since the flow's first packet")
    fig.update_yaxes(title_text=ytitle)
    return fig


def _markers(go, x, y, frames, name: str, symbol: str, colour: str, text=None, size: int = 8):
    return go.Scatter(x=np.asarray(x), y=np.asarray(y), mode="markers", name=f"{name} ({len(x)})",
                      marker=dict(symbol=symbol, color=colour, size=size, line=dict(width=1, color=colour)),
                      customdata=np.asarray(frames), text=text,
                      hovertemplate="frame %{customdata}<br>%{y:,} at %{x:.6f} s" + ("<br>%{text}" if text is not None else "")
                      + f"<extra>{name}</extra>")


def _step(go, x, y, name: str, colour: str, dash: str = "solid"):
    keep = ds.m4(x, y.astype(np.float64))
    return go.Scatter(x=x[keep], y=y[keep], mode="lines", name=name, line=dict(color=colour, width=1.5, dash=dash,
                      shape="hv"), hovertemplate="%{y:,} at %{x:.6f} s<extra>" + name + "</extra>")


def sequence(fp: FlowPackets, title: str = "") -> "go.Figure":
    go = _go()
    fig = go.Figure()
    d = fp.data
    t, lo, hi = d["t"].to_numpy(), d["seq"].to_numpy(), d["end"].to_numpy()
    retx = (d["retrans"] != "").to_numpy()
    bx, blo, bhi = ds.ranges(t[~retx], lo[~retx], hi[~retx])
    xs, ys = ds.segments(bx, blo, bhi)
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name="segments sent", line=dict(color="#222", width=1.2),
                             hoverinfo="skip"))
    a = fp.acks
    if len(a):
        at, ack = a["t"].to_numpy(), a["ack"].to_numpy()
        fig.add_trace(_step(go, at, ack, "ACK", "#2ca02c"))
        fig.add_trace(_step(go, at, ack + a["rwnd"].to_numpy().astype(np.int64), "ACK + rwnd", "#d4a017"))
    s = fp.sack
    plain = s[~s["dsack"].to_numpy()]
    if len(plain):
        sx, slo, shi = ds.ranges(plain["t"].to_numpy(), plain["left"].to_numpy(), plain["right"].to_numpy())
        xs, ys = ds.segments(sx, slo, shi)
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name="SACK blocks", line=dict(color="#17becf", width=2),
                                 hoverinfo="skip"))
    # Events from here on: every one is drawn.
    if retx.any():
        r = d[retx]
        xs, ys = ds.segments(r["t"].to_numpy(), r["seq"].to_numpy(), r["end"].to_numpy())
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color="#d62728", width=2), hoverinfo="skip",
                                 legendgroup="retx", showlegend=False))
        fig.add_trace(_markers(go, r["t"], r["seq"], r["frame"], "retransmissions", "x", "#d62728",
                               _messages(fp, "retransmission", r["frame"])))
        fig.data[-1].legendgroup = "retx"
    spurious = fp.events[(fp.events["kind"] == "spurious_retransmission").to_numpy()]
    if len(spurious):
        rx = d.set_index("frame").reindex(spurious["frame"].to_numpy())
        fig.add_trace(_markers(go, rx["t"], rx["seq"], rx.index, "spurious retransmissions", "diamond-open",
                               "#ff7f0e", spurious["message"].to_numpy(), size=12))
    dsack = s[s["dsack"].to_numpy()]
    if len(dsack):
        xs, ys = ds.segments(dsack["t"].to_numpy(), dsack["left"].to_numpy(), dsack["right"].to_numpy())
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color="#9467bd", width=3), hoverinfo="skip",
                                 legendgroup="dsack", showlegend=False))
        fig.add_trace(_markers(go, dsack["t"], dsack["left"], dsack["frame"], "DSACKs", "triangle-up", "#9467bd"))
        fig.data[-1].legendgroup = "dsack"
    rows = fp.rows
    y_of = _y_of(fp)
    for col, name, symbol, colour in (("reorder_packets", "reordering", "star", "#e377c2"),
                                      ("zero_window", "zero window", "square", "#8c1414"),
                                      ("zero_window_probe", "zero-window probes", "square-open", "#8c1414"),
                                      ("lost_before", "not captured before", "line-ns-open", "#7f7f7f")):
        ev = rows[rows[col].to_numpy() > 0]
        if col == "reorder_packets":
            ev = rows[(rows[col].to_numpy() > 0) | rows["reorder_ns"].notna().to_numpy()]
        if len(ev):
            fig.add_trace(_markers(go, ev["t"], y_of(ev), ev["frame"], name, symbol, colour))
    return _layout(fig, title or f"flow {fp.stream}: time-sequence", "relative sequence number (bytes)")


def _messages(fp: FlowPackets, kind: str, frames: pd.Series) -> np.ndarray:
    """The engine's words for each frame's event of `kind` (hover text)."""
    ev = fp.events[(fp.events["kind"] == kind).to_numpy()].drop_duplicates("frame").set_index("frame")["message"]
    return ev.reindex(frames.to_numpy()).fillna("").to_numpy()


def _y_of(fp: FlowPackets):
    """Where an event row sits on the sequence axis: a data segment at its sequence number,
    an ACK at its acknowledgement number."""
    seq = pd.concat([fp.data.set_index("frame")["seq"], fp.acks.set_index("frame")["ack"]])
    seq = seq[~seq.index.duplicated()]

    def y(ev: pd.DataFrame) -> np.ndarray:
        return seq.reindex(ev["frame"].to_numpy()).ffill().fillna(0).to_numpy()

    return y


def _state_shapes(t: np.ndarray, limit: pd.Series) -> list[dict]:
    """One rectangle per run of buckets dominated (in time) by the same limit state."""
    if len(t) < 2:
        return []
    states = list(limit.cat.categories)
    codes = limit.cat.codes.to_numpy()
    dur = np.diff(t, append=t[-1])
    n = min(STATE_BUCKETS, len(t))
    b = ds.buckets(t, n)
    acc = np.zeros((n, len(states)))
    np.add.at(acc, (b, codes), dur)
    dom = np.where(acc.sum(axis=1) > 0, acc.argmax(axis=1), -1)
    edges = np.linspace(t[0], t[-1], n + 1)
    shapes, start = [], 0
    for i in range(1, n + 1):
        if i == n or dom[i] != dom[start]:
            name = states[dom[start]] if dom[start] >= 0 else None
            if name in STATE_COLOURS:
                shapes.append(dict(type="rect", xref="x", yref="paper", x0=edges[start], x1=edges[i], y0=0, y1=1,
                                   fillcolor=STATE_COLOURS[name], line=dict(width=0), layer="below"))
            start = i
    return shapes


def flight(series: pd.DataFrame, stream: int, title: str = "") -> "go.Figure":
    go = _go()
    fig = go.Figure()
    t = series["t"].to_numpy()
    for col, name, colour in (("in_flight", "bytes in flight", "#1f77b4"), ("rwnd", "rwnd", "#d4a017")):
        fig.add_trace(_step(go, t, series[col].to_numpy(), name, colour))
    for conf, name, dash in (("estimate", "cwnd estimate", "solid"), ("bound", "cwnd lower bound", "dot")):
        c = series["cwnd_conf"].cat
        y = np.where(c.codes.to_numpy() == c.categories.get_loc(conf), series["cwnd"].to_numpy(), np.nan)
        if not np.isnan(y).all():
            fig.add_trace(_step(go, t, y, name, "#2ca02c", dash))
    counts = series["limit"].value_counts()
    present = set(counts.index[counts.to_numpy() > 0].astype(str))
    for name, colour in STATE_COLOURS.items():
        if name in present:  # legend swatches for the shading
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=f"limit: {name}",
                                     marker=dict(symbol="square", size=12, color=_opaque(colour))))
    fig.update_layout(shapes=_state_shapes(t, series["limit"]))
    return _layout(fig, title or f"flow {stream}: bytes in flight, rwnd and cwnd", "bytes")


def throughput(series: pd.DataFrame, stream: int, ceiling_bps: float | None = None, title: str = "") -> "go.Figure":
    go = _go()
    fig = go.Figure()
    t = series["t"].to_numpy()
    for col, name, colour in (("throughput_bps", "throughput (sent)", "#1f77b4"),
                              ("goodput_bps", "goodput (acknowledged)", "#2ca02c")):
        y = series[col].to_numpy() / 1e6
        keep = ds.m4(t, y)
        fig.add_trace(go.Scatter(x=t[keep], y=y[keep], mode="lines", name=name, line=dict(color=colour, width=1.5),
                                 hovertemplate="%{y:.3f} Mbit/s at %{x:.3f} s<extra>" + name + "</extra>"))
    if ceiling_bps and len(t):
        fig.add_trace(go.Scatter(x=[t[0], t[-1]], y=[ceiling_bps / 1e6] * 2, mode="lines", name="window ÷ RTT ceiling",
                                 line=dict(color="#d62728", dash="dash", width=1.5)))
    return _layout(fig, title or f"flow {stream}: throughput and goodput", "Mbit/s")


def rtt(series: pd.DataFrame, stream: int, min_rtt_ms: float | None = None, title: str = "") -> "go.Figure":
    go = _go()
    fig = go.Figure()
    s = series[series["rtt_ms"].notna()]
    t, y = s["t"].to_numpy(), s["rtt_ms"].to_numpy()
    keep = ds.m4(t, y)
    fig.add_trace(go.Scatter(x=t[keep], y=y[keep], mode="markers", name=f"RTT samples ({len(s):,})",
                             marker=dict(size=4, color="#1f77b4"), customdata=s["frame"].to_numpy()[keep],
                             hovertemplate="frame %{customdata}<br>%{y:.2f} ms at %{x:.3f} s<extra>RTT</extra>"))
    if min_rtt_ms and len(series):
        tt = series["t"].to_numpy()
        fig.add_trace(go.Scatter(x=[tt[0], tt[-1]], y=[min_rtt_ms] * 2, mode="lines", name="min RTT",
                                 line=dict(color="#7f7f7f", dash="dash", width=1)))
    return _layout(fig, title or f"flow {stream}: RTT samples", "ms")
