"""`Analysis.series(flow)`: the flow's state over time, one row per packet that describes
the data direction (its data segments and the receiver's ACKs).

Columns (docs/api.md lists them with their dtypes):
    frame          int64     frame number
    time           datetime64[ns, UTC]
    t              float64   seconds since the flow's first packet
    in_flight      int64     bytes in flight after this packet (RFC 6675 pipe)
    rwnd           int64     receive window limiting the data direction, bytes
    cwnd           float64   cwnd estimate or lower bound, bytes (NaN: unknown)
    cwnd_conf      category  none | bound | estimate
    limit          category  limit state (unknown, rwnd, zero_window, recovery, cwnd, sndbuf, app)
    throughput_bps float64   bits sent (retransmissions included) in the trailing window ÷ window
    goodput_bps    float64   bits newly acknowledged in the trailing window ÷ window
    rtt_ms         float64   RTT sample carried by this ACK (NaN: none)
The trailing window is one smoothed RTT, at least 1/200 of the flow's duration (`window_s`).

Flows are cut from one stream-sorted copy of the columns as numpy slices, so the series of
every flow of a capture with many flows costs one pass, not one table scan per flow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import numpy as np
import pandas as pd

from tcpdiag.report.packets import packets, unwrap

if TYPE_CHECKING:
    from tcpdiag.analysis import Analysis

SERIES_DTYPES = {
    "frame": "int64", "time": "datetime64[ns, UTC]", "t": "float64", "in_flight": "int64", "rwnd": "int64",
    "cwnd": "float64", "cwnd_conf": "category", "limit": "category", "throughput_bps": "float64",
    "goodput_bps": "float64", "rtt_ms": "float64",
}
_ACK = 16


def default_window(srtt_ms: float | None, duration: float) -> float:
    return max((srtt_ms or 0.0) / 1e3, duration / 200, 1e-3)


def _trailing_rate(t: np.ndarray, ev_t: np.ndarray, ev_bytes: np.ndarray, window: float) -> np.ndarray:
    """bits/s of the events (ev_t sorted) in (t − window, t] at each t."""
    cum = np.concatenate(([0.0], np.cumsum(ev_bytes, dtype=np.float64)))
    hi = np.searchsorted(ev_t, t, side="right")
    lo = np.searchsorted(ev_t, t - window, side="right")
    return (cum[hi] - cum[lo]) * 8 / window


def _columns(a: "Analysis") -> dict[str, np.ndarray]:
    """The packet columns series need, as numpy arrays sorted by (stream, frame); cached on
    the Analysis (the HTML report asks for several flows)."""
    if "_report_series_columns" in a.__dict__:
        return a.__dict__["_report_series_columns"]
    df = packets(a)
    order = np.argsort(df["stream"].to_numpy(), kind="stable")  # frames stay in capture order
    cols = {name: df[name].to_numpy()[order] for name in
            ("stream", "frame", "dir", "data_dir", "tcp_len", "flags", "ack_raw", "in_flight", "rwnd", "cwnd")}
    cols["ts"] = df["ts"].array.asi8[order]
    for name in ("cwnd_conf", "limit"):
        cols[name] = df[name].cat.codes.to_numpy()[order]
    rtt = df["rtt_ns"]
    cols["rtt_ms"] = rtt.astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)[order] / 1e6
    a.__dict__["_report_series_columns"] = cols
    return cols


def _flow(c: dict[str, np.ndarray], dd: int, srtt_ms: float | None, window_s: float | None,
          none_code: int) -> dict[str, np.ndarray]:
    t_all = (c["ts"] - c["ts"][0]) / 1e9
    window = window_s or default_window(srtt_ms, float(t_all[-1]))
    sel = c["data_dir"] == dd
    data = (c["dir"] == dd) & (c["tcp_len"] > 0)
    acks = (c["dir"] != dd) & ((c["flags"] & _ACK) != 0)
    t = t_all[sel]
    sent = _trailing_rate(t, t_all[data], c["tcp_len"][data], window)
    ack_raw = c["ack_raw"][acks]
    ack = np.maximum.accumulate(unwrap(ack_raw, int(ack_raw[0]))) if len(ack_raw) else np.empty(0, np.int64)
    good = _trailing_rate(t, t_all[acks], np.diff(ack, prepend=ack[:1]), window)
    cwnd = c["cwnd"][sel].astype(np.float64)
    conf = c["cwnd_conf"][sel]
    cwnd[conf == none_code] = np.nan
    return {
        "frame": c["frame"][sel].astype(np.int64), "time": c["ts"][sel], "t": t,
        "in_flight": c["in_flight"][sel].astype(np.int64), "rwnd": c["rwnd"][sel].astype(np.int64), "cwnd": cwnd,
        "cwnd_conf": conf, "limit": c["limit"][sel], "throughput_bps": sent, "goodput_bps": good,
        "rtt_ms": c["rtt_ms"][sel],
    }


def build_many(a: "Analysis", streams: Iterable[int] | None = None, window_s: float | None = None,
               with_stream: bool = True) -> pd.DataFrame:
    """The series of several flows (all when None), concatenated, with a `stream` column."""
    df = packets(a)
    c = _columns(a)
    cut = np.flatnonzero(np.diff(c["stream"])) + 1
    starts, ends = np.r_[0, cut], np.r_[cut, len(c["stream"])]
    wanted = None if streams is None else set(streams)
    conf_cats, limit_cats = df["cwnd_conf"].cat.categories, df["limit"].cat.categories
    none_code = conf_cats.get_loc("none")
    parts, ids = [], []
    for i, j in zip(starts, ends):
        if i == j:
            continue
        s = int(c["stream"][i])
        if wanted is not None and s not in wanted:
            continue
        v = a.verdicts[s]
        part = _flow({k: col[i:j] for k, col in c.items()}, v.data_dir, v.facts.get("srtt_ms"), window_s, none_code)
        parts.append(part)
        ids.append(np.full(len(part["frame"]), s, dtype=np.int64))
    cols = {k: np.concatenate([p[k] for p in parts]) if parts else np.empty(0, np.int64 if k != "t" else np.float64)
            for k in SERIES_DTYPES}
    out = pd.DataFrame({
        **({"stream": np.concatenate(ids) if ids else np.empty(0, np.int64)} if with_stream else {}),
        "frame": cols["frame"].astype(np.int64),
        "time": pd.to_datetime(cols["time"].astype(np.int64), unit="ns", utc=True),
        "t": cols["t"].astype(np.float64),
        "in_flight": cols["in_flight"].astype(np.int64),
        "rwnd": cols["rwnd"].astype(np.int64),
        "cwnd": cols["cwnd"].astype(np.float64),
        "cwnd_conf": pd.Categorical.from_codes(cols["cwnd_conf"].astype(np.int64), categories=conf_cats),
        "limit": pd.Categorical.from_codes(cols["limit"].astype(np.int64), categories=limit_cats),
        "throughput_bps": cols["throughput_bps"].astype(np.float64),
        "goodput_bps": cols["goodput_bps"].astype(np.float64),
        "rtt_ms": cols["rtt_ms"].astype(np.float64),
    })
    return out


def build(a: "Analysis", stream: int, window_s: float | None = None) -> pd.DataFrame:
    """One flow's series (no `stream` column)."""
    return build_many(a, [stream], window_s, with_stream=False)
